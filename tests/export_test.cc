// torch.export programs (.pt2, ir/export/): the archive layouts, the graph
// built from the program, its identity, inputs and reference outputs, and
// hostile archives. Fixtures: tests/fixtures/export/*.pt2, made by
// make_pt2_fixtures.py with PyTorch 2.6 (the Bazel build's LibTorch 1.13
// reads mlp.pt2: its operators are there too); the other archives here are
// edits of them, written by a stored-zip writer below.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/script.h>
#include <torch/version.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "ir/export/exported_program.h"
#include "ir/export/torch_save_pickle.h"
#include "ir/export/zip_archive.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using Entries = std::map<std::string, std::string>;
using testing::StoredZip;

Entries ReadAll(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(path);
  EXPECT_TRUE(source.ok()) << source.status();
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(*source);
  EXPECT_TRUE(archive.ok()) << archive.status();
  Entries out;
  for (const ZipArchive::Entry& e : archive->entries()) out[e.name] = *archive->ReadEntry(e.name, uint64_t{1} << 30);
  return out;
}

// A torch.save archive (a .pt inside the .pt2) whose pickle has `from`
// replaced by `to`.
std::string EditedPickle(const std::string& pt, const std::string& from, const std::string& to) {
  absl::StatusOr<ZipArchive> inner = ZipArchive::Open(MemorySource(pt));
  EXPECT_TRUE(inner.ok()) << inner.status();
  Entries entries;
  for (const ZipArchive::Entry& e : inner->entries()) entries[e.name] = *inner->ReadEntry(e.name, uint64_t{1} << 30);
  std::string& pickle = entries["data.pkl"];
  const size_t at = pickle.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) pickle.replace(at, from.size(), to);
  return StoredZip(entries, inner->prefix());
}

absl::StatusOr<ExportedProgram> Load(const std::string& bytes, const std::string& name = "edited.pt2") {
  return LoadExportedProgram(MemorySource(bytes), name);
}

std::vector<at::Tensor> Flat(const c10::IValue& v) {
  if (v.isTensor()) return {v.toTensor()};
  std::vector<at::Tensor> out;
  for (const c10::IValue& e : v.toTupleRef().elements()) out.push_back(e.toTensor());
  return out;
}

// Runs the program on its example inputs; its outputs against the
// reference: identical on the LibTorch that computed them, else close.
void ExpectRunsLikePyTorch(const ExportedProgram& program) {
  ASSERT_TRUE(program.example_inputs.has_value());
  ASSERT_TRUE(program.reference.has_value());
  ASSERT_TRUE(CheckExportedInputs(program.inputs, *program.example_inputs).ok());
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(program.prepared);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Interpreter interpreter(*plan);
  torch::NoGradGuard no_grad;
  absl::StatusOr<c10::IValue> out = interpreter.Run(*program.example_inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<at::Tensor> ours = Flat(*out);
  ASSERT_EQ(ours.size(), program.reference->outputs.size());
  const bool same_libtorch = absl::StartsWith(program.reference->torch_version, TORCH_VERSION) &&
                             program.reference->threads == at::get_num_threads();
  for (size_t i = 0; i < ours.size(); ++i) {
    if (same_libtorch) {
      EXPECT_TRUE(torch::equal(ours[i], program.reference->outputs[i].toTensor())) << "output " << i;
    } else {
      EXPECT_TRUE(torch::allclose(ours[i], program.reference->outputs[i].toTensor(), 1e-5, 1e-6)) << "output " << i;
    }
  }
}

TEST(ExportTest, ReadsATorchExportArchive) {
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath("export/mlp.pt2"));
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->layout, "torch.export.save (PyTorch 2.6-2.7 layout)");
  EXPECT_EQ(program->schema_version, "8.2");
  EXPECT_TRUE(absl::StartsWith(program->torch_version, "2.6")) << program->torch_version;
  EXPECT_EQ(program->weight_bytes, (16 * 8 + 16 + 4 * 16 + 4 + 16 + 4) * 4);  // fc1, fc2, scale, const
  ASSERT_EQ(program->inputs.size(), 1u);
  EXPECT_EQ(program->inputs[0].name, "x");
  EXPECT_EQ(program->inputs[0].sizes, (std::vector<int64_t>{3, 8}));
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(program->prepared);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // The program's node names, module paths (named_modules() names) and the
  // user's source line.
  std::vector<std::string> labels;
  for (const NodePlan& node : (*plan)->nodes()) {
    if (node.identity.kind == "prim::Constant") continue;
    labels.push_back(node.identity.label);
    EXPECT_TRUE(absl::StartsWith(node.identity.source, "tests/fixtures/export/make_pt2_fixtures.py:") ||
                absl::StrContains(node.identity.source, "make_pt2_fixtures.py:"))
        << node.identity.label << ": " << node.identity.source;
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"fc1/linear", "relu", "mul", "fc2/linear_1", "add"}));
  ExpectRunsLikePyTorch(*program);
}

// A parameter the forward uses directly (ViT's class token, here `token`):
// torch.export's tracer gives it an attribute, so torch.save pickles it with
// _rebuild_parameter_with_state, which the reader refused before (every
// torchvision ViT exported by 2.6 failed to open).
TEST(ExportTest, ReadsAParameterPickledWithItsState) {
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath("export/token.pt2"));
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->weight_bytes, (4 + 4 * 4 + 4) * 4);  // token, fc.weight, fc.bias
  ExpectRunsLikePyTorch(*program);
}
// Runs the program once on `inputs`; its outputs.
std::vector<at::Tensor> RunOn(const ExportedProgram& program, const std::vector<c10::IValue>& inputs) {
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(program.prepared);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  Interpreter interpreter(*plan);
  torch::NoGradGuard no_grad;
  absl::StatusOr<c10::IValue> out = interpreter.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? Flat(*out) : std::vector<at::Tensor>{};
}

// torch.cond runs as prim::If: each branch where its predicate holds.
TEST(ExportTest, RunsTorchCondBothWays) {
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath("export/cond.pt2"));
  ASSERT_TRUE(program.ok()) << program.status();
  ExpectRunsLikePyTorch(*program);
  int ifs = 0;
  for (const torch::jit::Node* node : program->prepared.graph->nodes()) ifs += node->kind() == c10::prim::If;
  EXPECT_EQ(ifs, 1) << *program->prepared.graph;
  const at::Tensor up = torch::tensor({1.0f, 2.0f, -0.5f, 0.25f});
  for (const at::Tensor& x : {up, -up}) {
    const std::vector<at::Tensor> out = RunOn(*program, {x});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(torch::equal(out[0], x.sum().item<float>() > 0 ? x.sin() : x.cos())) << x;
  }
}

// Exported with a dynamic batch (torch.export.Dim): any batch is accepted,
// and the output reshaped by the symbolic batch size follows it.
TEST(ExportTest, RunsADynamicBatchAtOtherSizes) {
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath("export/dyn.pt2"));
  ASSERT_TRUE(program.ok()) << program.status();
  ExpectRunsLikePyTorch(*program);
  const at::Tensor x3 = program->example_inputs->at(0).toTensor();
  for (int64_t batch : {1, 3, 5}) {
    // The reference batch's rows first (rows are computed independently).
    const at::Tensor x = torch::cat({x3, torch::randn({batch, 4})}).narrow(0, 0, batch);
    ASSERT_TRUE(CheckExportedInputs(program->inputs, {x}).ok()) << batch;
    const std::vector<at::Tensor> out = RunOn(*program, {x});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].sizes(), (std::vector<int64_t>{batch * 2})) << batch;
    const int64_t common = std::min<int64_t>(batch, 3) * 2;
    EXPECT_TRUE(torch::allclose(out[0].narrow(0, 0, common), program->reference->outputs[0].toTensor().narrow(0, 0, common)))
        << batch;
  }
}

// Non-tensor constants (the schema spells every argument out: an add's
// `alpha`, a convolution's strides) are one node per value at the top of the
// graph, as TorchScript's frontend pools them: a chain of N adds had 2N
// constant nodes, run every time and 10% of its run time (export_overhead).
void CollectConstants(const torch::jit::Block* block, bool top, std::map<std::string, int>& values, int& nested,
                      int& uses) {
  for (const torch::jit::Node* node : block->nodes()) {
    for (const torch::jit::Block* inner : node->blocks()) CollectConstants(inner, false, values, nested, uses);
    if (node->kind() != c10::prim::Constant || node->output()->type()->kind() == c10::TypeKind::TensorType) continue;
    std::ostringstream value;
    value << *node->output()->type() << " " << *torch::jit::toIValue(node->output());
    ++values[value.str()];
    nested += top ? 0 : 1;
    uses += static_cast<int>(node->output()->uses().size());
  }
}

TEST(ExportTest, ScalarConstantsAreOnePerValue) {
  for (const std::string name : {"scalars.pt2", "mlp.pt2", "cond.pt2", "dyn.pt2"}) {
    absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath(absl::StrCat("export/", name)));
    ASSERT_TRUE(program.ok()) << program.status();
    std::map<std::string, int> values;
    int nested = 0, uses = 0;
    CollectConstants(program->prepared.graph->block(), true, values, nested, uses);
    for (const auto& [value, nodes] : values) EXPECT_EQ(nodes, 1) << name << ": " << value;
    EXPECT_EQ(nested, 0) << name << *program->prepared.graph;
    // scalars.pt2 repeats its numbers (1 and alpha=1 in each add): shared.
    if (name == "scalars.pt2") {
      EXPECT_GT(uses, static_cast<int>(values.size())) << *program->prepared.graph;
    }
    // A number where the schema takes a Tensor (aten.add.Tensor(x, 1)) is a
    // wrapped-number tensor, so add.Tensor runs, not add.Scalar.
    int wrapped = 0;
    for (const torch::jit::Node* node : program->prepared.graph->nodes()) {
      if (name != "scalars.pt2" || (node->kind() != c10::aten::add && node->kind() != c10::aten::mul)) continue;
      EXPECT_EQ(node->schema().overload_name(), "Tensor") << name << ": " << *node;
      const c10::optional<c10::IValue> other = torch::jit::toIValue(node->input(1));
      wrapped += other.has_value() && other->isTensor() && other->toTensor().unsafeGetTensorImpl()->is_wrapped_number();
    }
    if (name == "scalars.pt2") {
      EXPECT_EQ(wrapped, 3) << *program->prepared.graph;
    }
    ExpectRunsLikePyTorch(*program);
  }
}

TEST(ExportTest, AnOperatorThisLibTorchLacksIsRefusedByName) {
  absl::StatusOr<ExportedProgram> program = LoadExportedProgram(testing::FixturePath("export/sdpa.pt2"));
  if (TORCH_VERSION_MAJOR < 2) {
    ASSERT_FALSE(program.ok());
    EXPECT_TRUE(absl::StrContains(program.status().message(), "aten::scaled_dot_product_attention")) << program.status();
    EXPECT_TRUE(absl::StrContains(program.status().message(), absl::StrCat("LibTorch ", TORCH_VERSION))) << program.status();
    EXPECT_FALSE(absl::StrContains(program.status().message(), "\n"));
  } else {
    ASSERT_TRUE(program.ok()) << program.status();
    ExpectRunsLikePyTorch(*program);
  }
}

// The PT2 archive of PyTorch 2.8+ (docs/source/export/pt2_archive.md), made
// here from mlp.pt2's program and weights: no PyTorch 2.8 on this machine.
// tools/device_check.sh exports a real one where a newer PyTorch is.
TEST(ExportTest, ReadsThePt2ArchiveLayout) {
  const Entries old = ReadAll(testing::FixturePath("export/mlp.pt2"));
  absl::StatusOr<ExportedProgram> original = LoadExportedProgram(testing::FixturePath("export/mlp.pt2"));
  ASSERT_TRUE(original.ok());
  Entries pt2;
  pt2["archive_format"] = "pt2";
  pt2["models/m.json"] = old.at("serialized_exported_program.json");
  // Weights as raw blobs with their tensor metadata.
  nlohmann::json params, constants;
  int k = 0;
  auto blob = [&](const std::string& fqn, const at::Tensor& t, nlohmann::json& config, const char* folder) {
    const std::string path = absl::StrCat("w", k++);
    const at::Tensor c = t.contiguous();
    pt2[absl::StrCat("data/", folder, "/", path)] = std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
    nlohmann::json sizes = nlohmann::json::array(), strides = nlohmann::json::array();
    for (int64_t s : c.sizes()) sizes.push_back({{"as_int", s}});
    for (int64_t s : c.strides()) strides.push_back({{"as_int", s}});
    config["config"][fqn] = {{"path_name", path}, {"is_param", true}, {"use_pickle", false},
                             {"tensor_meta", {{"dtype", 7}, {"sizes", sizes}, {"strides", strides},
                                              {"storage_offset", {{"as_int", 0}}}, {"requires_grad", false},
                                              {"device", {{"type", "cpu"}}}, {"layout", 7}}}};
  };
  torch::manual_seed(0);
  blob("fc1.weight", torch::randn({16, 8}), params, "weights");
  blob("fc1.bias", torch::randn({16}), params, "weights");
  blob("fc2.weight", torch::randn({4, 16}), params, "weights");
  blob("fc2.bias", torch::randn({4}), params, "weights");
  blob("scale", torch::full({16}, 0.5), params, "weights");
  blob("const", torch::ones({4}), constants, "constants");
  pt2["data/weights/m_model_param_config.json"] = params.dump();
  pt2["data/constants/m_model_constants_config.json"] = constants.dump();
  const std::vector<char> sample = torch::jit::pickle_save(c10::ivalue::Tuple::create({torch::randn({3, 8})}));
  pt2["data/sample_inputs/m.pt"] = std::string(sample.begin(), sample.end());
  absl::StatusOr<ExportedProgram> program = Load(StoredZip(pt2, "m"), "m.pt2");
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->layout, "PT2 archive (model m)");
  ASSERT_TRUE(program->example_inputs.has_value());
  ASSERT_EQ(program->example_inputs->size(), 1u);
  absl::StatusOr<std::shared_ptr<const GraphPlan>> plan = GraphPlan::Build(program->prepared);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Interpreter interpreter(*plan);
  torch::NoGradGuard no_grad;
  absl::StatusOr<c10::IValue> out = interpreter.Run(*program->example_inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->toTensor().sizes(), (std::vector<int64_t>{3, 4}));

  // Sizes and strides whose extent overflows int64 are named as such (they
  // read as "no memory for 4 bytes").
  nlohmann::json huge = params;
  huge["config"]["fc1.weight"]["tensor_meta"]["sizes"] = {{{"as_int", int64_t{1} << 62}}, {{"as_int", 8}}};
  huge["config"]["fc1.weight"]["tensor_meta"]["strides"] = {{{"as_int", 8}}, {{"as_int", 1}}};
  pt2["data/weights/m_model_param_config.json"] = huge.dump();
  absl::StatusOr<ExportedProgram> overflowed = Load(StoredZip(pt2, "m"), "m.pt2");
  ASSERT_FALSE(overflowed.ok());
  EXPECT_TRUE(absl::StrContains(overflowed.status().message(), "reach past 2^63 elements")) << overflowed.status();
}

// Each hostile archive: one line naming what is wrong, no crash.
TEST(ExportTest, HostileArchivesAreRefusedInOneLine) {
  const Entries good = ReadAll(testing::FixturePath("export/mlp.pt2"));
  std::ifstream in(testing::FixturePath("export/mlp.pt2"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto edited = [&](const std::function<void(Entries&)>& edit) {
    Entries e = good;
    edit(e);
    return StoredZip(e);
  };
  auto program_json = [&](const std::function<void(nlohmann::json&)>& edit) {
    return edited([&](Entries& e) {
      nlohmann::json j = nlohmann::json::parse(e.at("serialized_exported_program.json"));
      edit(j);
      e["serialized_exported_program.json"] = j.dump();
    });
  };
  const std::pair<std::string, std::string> cases[] = {
      {bytes.substr(0, bytes.size() / 2), "not a readable zip archive: no end-of-central-directory record"},
      {"not a zip at all", "not a readable zip archive"},
      {StoredZip(good), ""},  // rewritten whole: still good
      {program_json([](nlohmann::json& j) { j["schema_version"]["major"] = 9; }), "export schema version 9.2"},
      {program_json([](nlohmann::json& j) {
         j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op.default";
       }),
       "calls aten::no_such_op (torch.ops.aten.no_such_op.default), which LibTorch"},
      // An operator library's operator gets the hint a TorchScript model gets.
      {program_json([](nlohmann::json& j) {
         j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.torchvision.nms.default";
       }),
       "(torchvision::nms is torchvision's: "},
      {program_json([](nlohmann::json& j) {
         j["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.higher_order.while_loop";
       }),
       "the higher-order operator while_loop is not run by graphprof"},
      {program_json([](nlohmann::json& j) { j["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = {{"as_tensor", {{"name", "nowhere"}}}}; }),
       "uses 'nowhere', which no node or input made"},
      {program_json([](nlohmann::json& j) { j["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"] = {{"as_weird", 1}}; }),
       "an argument of kind as_weird, which graphprof does not read"},
      {edited([](Entries& e) { e.erase("serialized_state_dict.pt"); }), "the archive has no weights for parameter 'fc1.weight'"},
      // Misread versions and metadata are named as they are (they read as "-1.2" and "-1 threads").
      {program_json([](nlohmann::json& j) { j["schema_version"]["major"] = "8"; }),
       "schema_version.major is \"8\", not a version number"},
      {program_json([](nlohmann::json& j) { j["schema_version"]["major"] = 8.0; }), "schema_version.major is 8.0"},
      {program_json([](nlohmann::json& j) { j["schema_version"]["minor"] = nlohmann::json::parse("18446744073709551616"); }),
       "schema_version.minor is 1.8446744073709552e+19, not a version number"},
      {edited([](Entries& e) { e["extra_files/graphprof_reference.json"] = R"({"format": 1, "threads": "1"})"; }),
       "threads is \"1\", not a thread count"},
      {edited([](Entries& e) { e["extra_files/graphprof_reference.hex"].pop_back(); }),
       "graphprof_reference.hex has an odd number of digits"},
      // Nested conds are bounded (20,000 took 65 s and 4.2 GB to refuse).
      {[&] {
         Entries e = ReadAll(testing::FixturePath("export/cond.pt2"));
         nlohmann::json j = nlohmann::json::parse(e.at("serialized_exported_program.json"));
         nlohmann::json& nodes = j["graph_module"]["graph"]["nodes"];
         const nlohmann::json shell = nodes[2];  // copied once a level: linear in the depth
         nlohmann::json cond = shell;
         for (int level = 0; level < 300; ++level) {
           nlohmann::json outer = shell;
           nlohmann::json& branch = outer["inputs"][1]["arg"]["as_graph"]["graph"];
           branch["outputs"] = shell["outputs"];
           branch["nodes"] = nlohmann::json::array();
           branch["nodes"].push_back(std::move(cond));
           cond = std::move(outer);
         }
         nodes[2] = std::move(cond);
         e["serialized_exported_program.json"] = j.dump();
         return StoredZip(e);
       }(),
       "conds nest deeper than 256 levels"},
      {edited([&](Entries& e) {
         e["serialized_state_dict.pt"] = EditedPickle(e["serialized_state_dict.pt"], "torch._utils\n_rebuild_parameter",
                                                      "builtins\neval");
       }),
       "serialized_state_dict.pt: the pickle holds builtins.eval, which graphprof does not read"},
  };
  // Damaged zip fields: a stored entry whose two sizes differ, an entry
  // offset past the archive's end (they read as "compressed (method 0)" and
  // "claims 0 bytes").
  auto central = [&](size_t field, uint32_t value) {
    std::string zip = StoredZip(good);
    const size_t at = zip.find(std::string("PK\x01\x02", 4));
    for (int i = 0; i < 4; ++i) zip[at + field + i] = static_cast<char>(value >> (8 * i));
    return zip;
  };
  const std::pair<std::string, std::string> damaged[] = {
      {central(20, 7), "is stored (not compressed) yet says it takes 7 bytes"},
      {central(42, 0xFFFFFFF0u), "past the archive's end"},
  };
  for (const auto& [archive, expected] : damaged) {
    absl::StatusOr<ExportedProgram> p = Load(archive);
    ASSERT_FALSE(p.ok()) << expected;
    EXPECT_TRUE(absl::StrContains(p.status().message(), expected)) << p.status() << "\n expected: " << expected;
  }
  for (const auto& [archive, expected] : cases) {
    absl::StatusOr<ExportedProgram> p = Load(archive);
    if (expected.empty()) {
      EXPECT_TRUE(p.ok()) << p.status();
      continue;
    }
    ASSERT_FALSE(p.ok()) << expected;
    EXPECT_TRUE(absl::StrContains(p.status().message(), expected)) << p.status() << "\n expected: " << expected;
    EXPECT_TRUE(absl::StartsWith(p.status().message(), "edited.pt2: ")) << p.status();
    EXPECT_FALSE(absl::StrContains(p.status().message(), "\n")) << p.status();
  }
  // A storage claiming far more than the archive holds (2 GB in 16 KB):
  // fc1.weight's element count, BININT1 128, made BININT 2^29.
  Entries big = good;
  big["serialized_state_dict.pt"] = EditedPickle(good.at("serialized_state_dict.pt"), std::string("cpuq\x07K\x80", 7),
                                                 std::string("cpuq\x07J\x00\x00\x00\x20", 10));
  absl::StatusOr<ExportedProgram> p = Load(StoredZip(big));
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(absl::StrContains(p.status().message(), "bytes but the archive holds")) << p.status();
  // Inputs of the wrong dtype, rank or static size.
  absl::StatusOr<ExportedProgram> mlp = LoadExportedProgram(testing::FixturePath("export/mlp.pt2"));
  ASSERT_TRUE(mlp.ok());
  EXPECT_TRUE(absl::StrContains(CheckExportedInputs(mlp->inputs, {torch::zeros({3, 8}, torch::kInt64)}).message(),
                                "input 0 (x) must be Float but is Long"));
  EXPECT_TRUE(absl::StrContains(CheckExportedInputs(mlp->inputs, {torch::zeros({3, 9})}).message(),
                                "must have size 8 in dimension 1 (exported static) but has 9"));
  EXPECT_TRUE(absl::StrContains(CheckExportedInputs(mlp->inputs, {}).message(), "takes 1 input but 0 were given"));
}

}  // namespace
}  // namespace graphprof
