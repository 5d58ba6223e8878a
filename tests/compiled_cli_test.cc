// profile_graph --model=PACKAGE.aoti.pt2 on AOTInductor packages compiled at
// build time by graphprof.compile_aoti (tests/fixtures/compiled/
// make_packages.py, PyTorch 2.6 in the Debian 13 root): the report's rows are
// the generated kernels and extern calls, located in the program's modules
// and source lines, verified against PyTorch's outputs within the
// tolerance; hostile packages refused in one line, nothing written.
// Registered in the CMake build on LibTorch 2.6 only (tests/CMakeLists.txt).
#include <dirent.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <vector>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/export/zip_archive.h"
#include "tests/cli_test_util.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::ExpectOneLineError;
using ::graphprof::testing::Exists;
using ::graphprof::testing::Result;
using ::graphprof::testing::RunTool;
using ::graphprof::testing::Slurp;
using ::graphprof::testing::StoredZip;
using ::graphprof::testing::TempDir;
using ::graphprof::testing::Write;

std::string Package(const std::string& name) { return "tests/compiled/" + name + ".aoti.pt2"; }

nlohmann::json ProfileJson(const std::string& name, std::vector<std::string> extra = {}) {
  const std::string out = TempDir("compiled_cli_test") + "/" + name + ".json";
  std::vector<std::string> args = {"--model=" + Package(name), "--warmup=1", "--runs=5", "--format=json",
                                   "--output=" + out};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = RunTool(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? nlohmann::json::parse(Slurp(out)) : nlohmann::json::object();
}

TEST(CompiledCliTest, RowsAreTheKernelsAndExternCallsInTheirModules) {
  const nlohmann::json j = ProfileJson("cnn");
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j["verified"], true) << j["verification"].dump();
  std::vector<std::string> kinds;
  std::map<std::string, std::string> module_of;
  for (const nlohmann::json& node : j["nodes"]) {
    kinds.push_back(node["kind"]);
    module_of[node["kind"]] = node["module"];
    if (node["module"] != "") {
      EXPECT_TRUE(absl::StrContains(node["source"].get<std::string>(), "make_packages.py:")) << node.dump();
    }
  }
  // Generated kernels and the extern convolution and matrix product, in
  // call order (Inductor 2.6's kernels for this model).
  ASSERT_GE(kinds.size(), 4u);
  EXPECT_TRUE(absl::StartsWith(kinds.front(), "inductor::cpp_fused_")) << kinds.front();
  EXPECT_EQ(module_of.count("aten::convolution"), 1u);
  EXPECT_EQ(module_of["aten::convolution"], "block.conv");
  // The kernel packing the convolution's weight computes conv2d's node only:
  // block.conv; the one fusing batch norm, relu (block) and the mean (the
  // root) is charged to the root, the deepest module holding all three.
  bool addmm = false, conv_kernel = false, root_kernel = false;
  for (const auto& [kind, module] : module_of) {
    addmm |= absl::StrContains(kind, "aten::addmm");
    conv_kernel |= absl::StartsWith(kind, "inductor::") && module == "block.conv";
    root_kernel |= absl::StartsWith(kind, "inductor::") && absl::StrContains(kind, "batch_norm") && module.empty();
  }
  EXPECT_TRUE(addmm);
  EXPECT_TRUE(conv_kernel);
  EXPECT_TRUE(root_kernel);
  // FLOPs per row from the program's nodes: the convolution's row holds most.
  double conv_flops = 0, all_flops = 0;
  for (const nlohmann::json& node : j["nodes"]) {
    all_flops += node["flops"].get<double>();
    if (node["kind"] == "aten::convolution") conv_flops = node["flops"].get<double>();
  }
  EXPECT_GT(conv_flops, 0.5 * all_flops);
  // Memory: the run's peak through the allocator (one untimed run), no peak row.
  EXPECT_GT(j["peak_bytes"].get<double>(), 0) << j.dump().substr(0, 300);
  EXPECT_EQ(j["memory"]["peak_node"], -1);
  // Input shapes per row: the convolution's, as the program's eager run saw them.
  for (const nlohmann::json& node : j["nodes"]) {
    if (node["kind"] == "aten::convolution") {
      EXPECT_TRUE(absl::StartsWith(node["input_shapes"].get<std::string>(), "f32[2,3,16,16], f32[8,3,3,3]"))
          << node.dump();
    }
  }
}

TEST(CompiledCliTest, TheTextReportSaysWhatItIsAndVerifiesWithinTheTolerance) {
  for (const std::string name : {"cnn", "mlp_buffer", "attention"}) {
    const Result r = RunTool({"--model=" + Package(name), "--warmup=1", "--runs=3", "--group_by=module"});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "an AOTInductor package (a torch.export program compiled by PyTorch 2.6"))
        << r.out;
    EXPECT_TRUE(absl::StrContains(r.out, "inputs: the package's reference inputs (graphprof.compile_aoti)")) << r.out;
    EXPECT_TRUE(absl::StrContains(r.out, "verified")) << r.out;
    // Compiled code sums in its own order: checked within the tolerance
    // (identical only when every value is).
    EXPECT_TRUE(absl::StrContains(r.out, "compared within rtol/atol") || absl::StrContains(r.out, "within tolerance"))
        << r.out;
    // The tolerance, from the eager program's own differences (at least the defaults).
    EXPECT_TRUE(absl::StrContains(r.out, "tolerance from the eager program's own differences")) << r.out;
  }
  // The caller's tolerance is the caller's.
  const Result given = RunTool({"--model=" + Package("cnn"), "--warmup=1", "--runs=2", "--rtol=1e-3", "--atol=1e-4"});
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_FALSE(absl::StrContains(given.out, "tolerance from the eager program")) << given.out;
  EXPECT_TRUE(absl::StrContains(given.out, "rtol 0.001")) << given.out;
}

TEST(CompiledCliTest, RefusesWhatItCannotDoWithAPackage) {
  ExpectOneLineError(RunTool({"--model=" + Package("mlp_buffer"), "--backward", "--runs=2"}), 1,
                     "AOTInductor package");
}

// An A/A of a package (--ab=none): copies loaded separately, interleaved,
// diffed row by row, both sides verified.
TEST(CompiledCliTest, AnAaOfAPackage) {
  const std::string out = TempDir("compiled_cli_test") + "/aa.json";
  const Result r = RunTool({"--model=" + Package("cnn"), "--ab=none", "--warmup=1", "--runs=6", "--format=json",
                            "--output=" + out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(Slurp(out));
  ASSERT_TRUE(j.contains("diff")) << j.dump().substr(0, 400);
  EXPECT_EQ(j["a"]["verified"], true);
  EXPECT_EQ(j["b"]["verified"], true);
  EXPECT_EQ(j["a"]["nodes"].size(), j["b"]["nodes"].size());
  EXPECT_GT(j["diff"]["matched_time_fraction"].get<double>(), 0.99) << j["diff"].dump().substr(0, 400);
}

// The migration diffs: TorchScript (A) against the package (B), and the
// eager program (A) against it, paired by module; FLOPs on both sides.
TEST(CompiledCliTest, MigrationDiffsAgainstThePackage) {
  for (const std::string a : {"tests/compiled/cnn.pt", "tests/compiled/cnn.pt2"}) {
    const std::string out = TempDir("compiled_cli_test") + "/migration.json";
    const Result r = RunTool({"--model=" + a, "--compare_model=" + Package("cnn"), "--warmup=1", "--runs=6",
                              "--format=json", "--output=" + out});
    ASSERT_EQ(r.code, 0) << a << ": " << r.err;
    const nlohmann::json j = nlohmann::json::parse(Slurp(out));
    EXPECT_EQ(j["b"]["verified"], true) << a;
    std::set<std::string> modules;
    for (const nlohmann::json& m : j["diff"]["modules"]) modules.insert(m["module"].get<std::string>());
    EXPECT_TRUE(modules.count("block.conv")) << a << ": " << j["diff"]["modules"].dump().substr(0, 600);
    // Every node of A pairs with the row computing it (a kernel fusing
    // block.bn's batch norm with block's relu takes both); a module whose
    // time B charges to a kernel of a module above it gets no verdict.
    EXPECT_GE(j["diff"]["matched_time_fraction"].get<double>(), 0.95) << a;
    EXPECT_EQ(j["diff"]["removed"], 0) << a;
    int fusing_rows = 0;
    for (const nlohmann::json& node : j["b"]["nodes"]) fusing_rows += node.contains("fused_modules");
    EXPECT_GT(fusing_rows, 0) << a;
    int fused = 0;
    for (const nlohmann::json& m : j["diff"]["modules"]) {
      const std::string reason = m.value("reason", "");
      if (absl::StartsWith(reason, "fused into a kernel of ")) {
        ++fused;
        EXPECT_EQ(m["verdict"], "inconclusive") << m.dump();
      }
      if (m["current_us"].get<double>() == 0 && m["base_us"].get<double>() > 0) {
        EXPECT_FALSE(reason.empty()) << a << ": " << m.dump();  // fused, or rows on one side only
        EXPECT_EQ(m["verdict"], "inconclusive") << a << ": " << m.dump();
      }
    }
    EXPECT_GT(fused, 0) << a << ": " << j["diff"]["modules"].dump().substr(0, 600);
    double flops = 0;
    for (const nlohmann::json& node : j["b"]["nodes"]) flops += node["flops"].get<double>();
    EXPECT_GT(flops, 0) << a;
    EXPECT_TRUE(absl::StrContains(j["b"]["verification"]["reference"].get<std::string>(), "A's output")) << a;
  }
  // B is checked against A's output: a package of other weights than A's
  // model is not called verified (exit 3, B's verification failed).
  const Result other = RunTool({"--model=tests/compiled/cnn_other.pt", "--compare_model=" + Package("cnn"),
                                "--warmup=1", "--runs=2"});
  EXPECT_EQ(other.code, 3) << other.err;
  EXPECT_TRUE(absl::StartsWith(other.err, "profile_graph: B: ")) << other.err;
}

// A copy of a real package with its entries changed by `edit`.
std::string Edited(const std::string& name, const std::function<void(std::map<std::string, std::string>&)>& edit) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(Package(name));
  EXPECT_TRUE(source.ok()) << source.status();
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(*source);
  EXPECT_TRUE(archive.ok()) << archive.status();
  std::map<std::string, std::string> entries;
  for (const ZipArchive::Entry& e : archive->entries()) entries[e.name] = *archive->ReadEntry(e.name, uint64_t{1} << 30);
  edit(entries);
  return StoredZip(entries, archive->prefix());
}

std::string EntryEnding(const std::map<std::string, std::string>& entries, const std::string& suffix) {
  for (const auto& [name, bytes] : entries) {
    if (absl::EndsWith(name, suffix) && !absl::EndsWith(name, "_metadata.json")) return name;
  }
  return "";
}

// The entries of directory `path` but . and ..
std::vector<std::string> Entries(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  EXPECT_NE(dir, nullptr) << path;
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

TEST(CompiledCliTest, HostilePackagesOneLineExitOneNothingWritten) {
  const std::string dir = TempDir("compiled_cli_hostile");
  // The tool's temporary directory (where a package's model is extracted):
  // empty afterwards, whether the package loaded or was refused.
  const std::string scratch = TempDir("compiled_cli_scratch");
  ASSERT_EQ(setenv("TMPDIR", scratch.c_str(), 1), 0);
  ASSERT_EQ(RunTool({"--model=" + Package("mlp_buffer"), "--runs=1", "--warmup=0"}).code, 0);
  const std::string whole = Slurp(Package("mlp_buffer"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {whole.substr(0, whole.size() / 2), ""},
      {Edited("mlp_buffer", [](auto& e) { e.erase(EntryEnding(e, ".so")); }), "has no compiled library"},
      {Edited("mlp_buffer", [](auto& e) { e[EntryEnding(e, ".so")] = "\x7f" "ELF garbage"; }),
       "its compiled library"},
      {Edited("mlp_buffer",
              [](auto& e) {
                std::string& so = e[EntryEnding(e, ".so")];
                so[18] = static_cast<char>(183);  // e_machine: EM_AARCH64
                so[19] = 0;
              }),
       "an ELF object for another machine (aarch64"},
      {Edited("mlp_buffer", [](auto& e) { e.erase(EntryEnding(e, ".cpp")); }), "has no wrapper source"},
      {Edited("mlp_buffer", [](auto& e) { e[EntryEnding(e, ".cpp")] = "int main() {}\n"; }),
       "not an AOTInductor wrapper source"},
      {Edited("mlp_buffer", [](auto& e) { e.erase("graphprof/program.pt2"); }), "has no program"},
      {Edited("mlp_buffer",
              [](auto& e) {
                const std::string so = EntryEnding(e, ".so");
                e["data/aotinductor/second/" + so.substr(so.rfind('/') + 1)] = e[so];
              }),
       "holds 2 compiled models"},
      {Edited("mlp_buffer",
              [](auto& e) {
                const std::string so = EntryEnding(e, ".so");
                e[so.substr(0, so.rfind('/')) + "/sub/extra.bin"] = "x";
              }),
       "has a file in a subfolder"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string package = Write(absl::StrCat("compiled_bad", i, ".aoti.pt2"), cases[i].first);
    const std::string out = absl::StrCat(dir, "/bad", i, ".json");
    const Result r = RunTool({"--model=" + package, "--runs=2", "--format=json", "--output=" + out});
    ExpectOneLineError(r, 1, cases[i].second);
    EXPECT_FALSE(Exists(out)) << i;
  }
  EXPECT_EQ(Entries(scratch), std::vector<std::string>());
  unsetenv("TMPDIR");
}

}  // namespace
}  // namespace graphprof
