// LoadExportedProgram (exported_program.h) in stages: the archive opened
// once, its layout found (archive_layout.h), then the program JSON and its
// version, the weights, the graph, the example inputs and the reference;
// tensors made from the archive's bytes. One error type inside (Refused),
// one status out.
#include "ir/export/exported_program.h"

#include <nlohmann/json.hpp>

#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_util.h"
#include "ir/export/archive_layout.h"
#include "ir/export/program_graph.h"
#include "ir/export/torch_save_pickle.h"

namespace graphprof {
namespace {

using export_internal::ArchiveLayout;
using export_internal::FindLayout;
using export_internal::Need;
using export_internal::WeightConfig;
using export_internal::kLegacyProgram;
using export_internal::kModelSuffix;
using export_internal::kModelsFolder;
using export_internal::kReferenceHex;
using export_internal::kReferenceMeta;
using export_internal::Refused;
using nlohmann::json;

// The program JSON and small files are read whole; anything larger is refused.
constexpr uint64_t kMaxJsonBytes = uint64_t{1} << 30;
constexpr uint64_t kMaxPickleBytes = uint64_t{256} << 20;

c10::ScalarType DtypeOfStorage(const std::string& storage_type) {
  static const std::map<std::string, c10::ScalarType> kTypes = {
      {"DoubleStorage", c10::kDouble}, {"FloatStorage", c10::kFloat},   {"HalfStorage", c10::kHalf},
      {"BFloat16Storage", c10::kBFloat16}, {"LongStorage", c10::kLong}, {"IntStorage", c10::kInt},
      {"ShortStorage", c10::kShort},   {"CharStorage", c10::kChar},     {"ByteStorage", c10::kByte},
      {"BoolStorage", c10::kBool},     {"ComplexDoubleStorage", c10::ScalarType::ComplexDouble},
      {"ComplexFloatStorage", c10::ScalarType::ComplexFloat},
  };
  auto it = kTypes.find(storage_type);
  if (it == kTypes.end()) throw Refused(absl::StrCat("a storage of type ", storage_type));
  return it->second;
}

// Reads a tensor's bytes from the archive straight into its storage.
at::Tensor ReadBlob(const ZipArchive& archive, const ZipArchive::Entry& entry, c10::ScalarType dtype, int64_t numel,
                    const std::string& what) {
  uint64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(static_cast<uint64_t>(numel), c10::elementSize(dtype), &bytes)) {
    throw Refused(absl::StrCat(what, " claims ", numel, " elements, more than any archive holds (damaged sizes?)"));
  }
  if (entry.size < bytes) {
    throw Refused(absl::StrCat(what, " claims ", bytes, " bytes but the archive holds ", entry.size, " for it"));
  }
  at::Tensor t;
  try {
    t = at::empty({numel}, at::TensorOptions().dtype(dtype));
  } catch (const std::exception&) {
    throw Refused(absl::StrCat(what, ": no memory for ", bytes, " bytes"));
  }
  if (absl::Status read = archive.source()->Read(entry.offset, bytes, static_cast<char*>(t.data_ptr())); !read.ok()) {
    throw Refused(absl::StrCat(what, ": ", read.message()));
  }
  return t;
}

// The values of a torch.save archive (a nested .pt), tensors made.
class TorchSaveFile {
 public:
  TorchSaveFile(ZipArchive archive, std::string name) : archive_(std::move(archive)), name_(std::move(name)) {}

  PickleValuePtr Root() {
    absl::StatusOr<std::string> pickle = archive_.ReadEntry("data.pkl", kMaxPickleBytes);
    if (!pickle.ok()) throw Refused(absl::StrCat(name_, ": ", pickle.status().message()));
    absl::StatusOr<PickleValuePtr> root = ReadTorchSavePickle(*pickle);
    if (!root.ok()) throw Refused(absl::StrCat(name_, ": ", root.status().message()));
    return *root;
  }

  at::Tensor Tensor(const PickledTensor& t) {
    auto it = storages_.find(t.storage_key);
    if (it == storages_.end()) {
      const ZipArchive::Entry* entry = archive_.Find(absl::StrCat("data/", t.storage_key));
      if (entry == nullptr) throw Refused(absl::StrCat(name_, ": storage ", t.storage_key, " is missing"));
      it = storages_
               .emplace(t.storage_key, ReadBlob(archive_, *entry, DtypeOfStorage(t.storage_type), t.storage_numel,
                                                absl::StrCat(name_, ": storage ", t.storage_key)))
               .first;
      bytes_ += it->second.nbytes();
    }
    return it->second.as_strided(t.sizes, t.strides, t.offset);
  }

  c10::IValue Value(const PickleValue& v) {
    switch (v.kind) {
      case PickleValue::Kind::kNone: return c10::IValue();
      case PickleValue::Kind::kBool: return v.b;
      case PickleValue::Kind::kInt: return v.i;
      case PickleValue::Kind::kFloat: return v.f;
      case PickleValue::Kind::kString: return v.s;
      case PickleValue::Kind::kTensor: return Tensor(v.tensor);
      case PickleValue::Kind::kTuple: {
        std::vector<c10::IValue> items;
        for (const PickleValuePtr& item : v.items) items.push_back(Value(*item));
        return c10::ivalue::Tuple::create(std::move(items));
      }
      case PickleValue::Kind::kList: {
        c10::impl::GenericList list(c10::AnyType::get());
        for (const PickleValuePtr& item : v.items) list.push_back(Value(*item));
        return list;
      }
      case PickleValue::Kind::kDict: {
        c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
        for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
          if (v.items[i]->kind != PickleValue::Kind::kString) throw Refused(absl::StrCat(name_, ": a dict key is not a string"));
          dict.insert_or_assign(v.items[i]->s, Value(*v.items[i + 1]));
        }
        return dict;
      }
    }
    return c10::IValue();
  }

  // A dict of name -> tensor (a state dict, the constants).
  std::map<std::string, at::Tensor> TensorDict() {
    PickleValuePtr root = Root();
    if (root->kind != PickleValue::Kind::kDict) throw Refused(absl::StrCat(name_, " is not a dict of tensors"));
    std::map<std::string, at::Tensor> out;
    for (size_t i = 0; i + 1 < root->items.size(); i += 2) {
      const PickleValue& key = *root->items[i];
      const PickleValue& value = *root->items[i + 1];
      if (key.kind != PickleValue::Kind::kString || value.kind != PickleValue::Kind::kTensor) {
        throw Refused(absl::StrCat(name_, " holds something other than named tensors"));
      }
      out[key.s] = Tensor(value.tensor);
    }
    return out;
  }
  int64_t bytes() const { return bytes_; }

 private:
  ZipArchive archive_;
  std::string name_;
  std::map<std::string, at::Tensor> storages_;
  int64_t bytes_ = 0;
};

// The leaves of a value as torch.export flattens a program's inputs and
// outputs: tuples, lists and dict values in order. Inputs keep their tensors
// (None is an empty container there); outputs keep every leaf (a program
// returning (x, None) or (x, n) has those as outputs).
void Flatten(const c10::IValue& v, bool tensors_only, std::vector<c10::IValue>& out) {
  if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) Flatten(e, tensors_only, out);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) Flatten(e, tensors_only, out);
  } else if (v.isGenericDict()) {
    for (const auto& kv : v.toGenericDict()) Flatten(kv.value(), tensors_only, out);
  } else if (v.isTensor() || !tensors_only) {
    out.push_back(v);
  }
}

std::vector<c10::IValue> Leaves(const std::vector<c10::IValue>& args, bool tensors_only) {
  std::vector<c10::IValue> out;
  for (const c10::IValue& a : args) Flatten(a, tensors_only, out);
  return out;
}

// (args, kwargs) of the example inputs: the positional ones (no kwargs).
std::vector<c10::IValue> Positional(const c10::IValue& v, const std::string& what) {
  if (!v.isTuple() || v.toTupleRef().elements().size() != 2 || !v.toTupleRef().elements()[0].isTuple()) {
    throw Refused(absl::StrCat(what, " is not (args, kwargs)"));
  }
  const c10::IValue& kwargs = v.toTupleRef().elements()[1];
  if (kwargs.isGenericDict() && !kwargs.toGenericDict().empty()) {
    throw Refused(absl::StrCat(what, " has keyword inputs; graphprof passes inputs by position"));
  }
  const auto& args = v.toTupleRef().elements()[0].toTupleRef().elements();
  return std::vector<c10::IValue>(args.begin(), args.end());
}

// A small entry's text (up to kMaxJsonBytes); Refused, `context` first, if unreadable.
std::string ReadText(const ZipArchive& archive, const std::string& entry, absl::string_view context = "") {
  absl::StatusOr<std::string> text = archive.ReadEntry(entry, kMaxJsonBytes);
  if (!text.ok()) throw Refused(absl::StrCat(context, text.status().message()));
  return *std::move(text);
}

// A stored zip inside the archive (a torch.save file).
ZipArchive Nested(const ZipArchive& archive, const std::string& entry) {
  absl::StatusOr<ZipArchive> nested = archive.OpenNested(entry);
  if (!nested.ok()) throw Refused(std::string(nested.status().message()));
  return *std::move(nested);
}

// The stages of LoadExportedProgram, as torch/_export/serde's deserializer
// has them: the program JSON (its version first), the weights, the graph
// assembled from both, then the inputs the archive carries. Each throws
// Refused; LoadExportedProgram turns that into its one error.

// The program JSON, its schema version checked (major 8) and recorded.
json ReadProgramJson(const ZipArchive& archive, const ArchiveLayout& layout, ExportedProgram& program) {
  json j = json::parse(ReadText(archive, layout.program), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw Refused(absl::StrCat(layout.program, " is not valid JSON"));
  const json& version = Need(j, "schema_version", layout.program);
  // Whole numbers only: "8", 8.0 or 2**64 are not a version (nlohmann
  // reads 2**64 as unsigned, above int64).
  for (const char* part : {"major", "minor"}) {
    const json& v = Need(version, part, "schema_version");
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > 1000000)) {
      throw Refused(absl::StrCat("schema_version.", part, " is ", v.dump().substr(0, 40),
                                 ", not a version number (graphprof reads major version 8)"));
    }
  }
  const int64_t major = version.at("major").get<int64_t>();
  program.schema_version = absl::StrCat(major, ".", version.at("minor").get<int64_t>());
  if (major != 8) {
    throw Refused(absl::StrCat("export schema version ", program.schema_version,
                               "; graphprof reads major version 8 (PyTorch 2.5 to 2.11)"));
  }
  if (j.contains("torch_version") && j.at("torch_version").is_string()) program.torch_version = j.at("torch_version");
  return j;
}

// One tensor of a weights config: its metadata checked (sizes, strides and
// offset within 2^63 elements), its blob read.
at::Tensor ReadConfiguredTensor(const ZipArchive& archive, const json& meta, const std::string& blob_folder,
                                const std::string& what) {
  if (Need(meta, "use_pickle", what).is_boolean() && meta.at("use_pickle").get<bool>()) {
    throw Refused(absl::StrCat(what, " is pickled (a custom object or tensor subclass), which graphprof does not read"));
  }
  const json& tm = Need(meta, "tensor_meta", what);
  std::vector<int64_t> sizes, strides;
  for (const json& s : Need(tm, "sizes", what)) sizes.push_back(Need(s, "as_int", what).get<int64_t>());
  for (const json& s : Need(tm, "strides", what)) strides.push_back(Need(s, "as_int", what).get<int64_t>());
  const int64_t offset = Need(Need(tm, "storage_offset", what), "as_int", what).get<int64_t>();
  if (sizes.size() != strides.size()) throw Refused(absl::StrCat(what, " has sizes and strides of other lengths"));
  if (offset < 0) throw Refused(absl::StrCat(what, " has a negative storage offset"));
  int64_t numel = offset + 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) throw Refused(absl::StrCat(what, " has a negative size or stride"));
    if (sizes[d] == 0) numel = 0;
  }
  for (size_t d = 0; numel > 0 && d < sizes.size(); ++d) {
    int64_t span = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) || __builtin_add_overflow(numel, span, &numel)) {
      throw Refused(absl::StrCat(what, "'s sizes and strides reach past 2^63 elements (damaged?)"));
    }
  }
  const std::string blob = absl::StrCat(blob_folder, Need(meta, "path_name", what).get<std::string>());
  const ZipArchive::Entry* entry = archive.Find(blob);
  if (entry == nullptr) throw Refused(absl::StrCat(what, ": ", blob, " is missing"));
  const c10::ScalarType dtype = export_internal::ScalarTypeOf(Need(tm, "dtype", what).get<int64_t>());
  return ReadBlob(archive, *entry, dtype, numel, what).as_strided(sizes, strides, offset);
}

// Every weight and constant by name, in either layout; their bytes in
// `program.weight_bytes`.
std::map<std::string, at::Tensor> ReadWeights(const ZipArchive& archive, const ArchiveLayout& layout,
                                              ExportedProgram& program) {
  std::map<std::string, at::Tensor> weights;
  for (const std::string& file : layout.pickled_weights) {
    if (archive.Find(file) == nullptr) continue;
    TorchSaveFile saved(Nested(archive, file), file);
    for (auto& [k, t] : saved.TensorDict()) weights[k] = t;
    program.weight_bytes += saved.bytes();
  }
  for (const WeightConfig& weight_config : layout.weight_configs) {
    if (archive.Find(weight_config.config) == nullptr) continue;
    json config = json::parse(ReadText(archive, weight_config.config), nullptr, false);
    if (config.is_discarded()) throw Refused(absl::StrCat(weight_config.config, " is not valid JSON"));
    for (const auto& [fqn, meta] : Need(config, "config", weight_config.config).items()) {
      const std::string what = absl::StrCat(weight_config.config, " '", fqn, "'");
      at::Tensor tensor = ReadConfiguredTensor(archive, meta, weight_config.blob_folder, what);
      program.weight_bytes += tensor.storage().nbytes();
      weights[fqn] = std::move(tensor);
    }
  }
  return weights;
}

// The graph from the program JSON and the weights, prepared and named after
// the file; the user inputs as declared; what the program writes.
void AssembleGraph(const json& j, const std::string& program_json, const std::map<std::string, at::Tensor>& weights,
                   const std::string& name, ExportedProgram& program) {
  const json& graph_module = Need(j, "graph_module", program_json);
  export_internal::BuiltGraph built =
      export_internal::BuildProgramGraph(graph_module, [&](const std::string& fqn, const std::string& kind) {
        auto it = weights.find(fqn);
        if (it == weights.end()) throw Refused(absl::StrCat("the archive has no weights for ", kind, " '", fqn, "'"));
        return it->second;
      });
  program.parameters = built.parameters;
  if (!built.written_inputs.empty()) {
    program.notes.push_back(absl::StrCat("the program writes its input", built.written_inputs.size() == 1 ? "" : "s",
                                         " in place (", absl::StrJoin(built.written_inputs, "; "),
                                         "): every run starts from a copy of the inputs as given, and the "
                                         "caller's are never changed"));
  }
  // User inputs as declared (tensor_values).
  const json& values = Need(Need(graph_module, "graph", "graph_module"), "tensor_values", "the graph");
  for (const std::string& input : built.user_inputs) {
    ExportedInput in;
    in.name = input;
    if (values.contains(input)) {
      const json& meta = values.at(input);
      in.dtype = export_internal::ScalarTypeOf(Need(meta, "dtype", input).get<int64_t>());
      for (const json& s : Need(meta, "sizes", input)) {
        in.sizes.push_back(s.contains("as_int") && s.at("as_int").is_number_integer() ? s.at("as_int").get<int64_t>() : -1);
      }
    }
    program.inputs.push_back(std::move(in));
  }
  absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(built.graph, name.substr(name.rfind('/') + 1));
  if (!prepared.ok()) throw Refused(std::string(prepared.status().message()));
  program.prepared = *std::move(prepared);
  program.prepared.origins = std::move(built.origins);
}

// The archive's example inputs, when it has them.
void ReadExampleInputs(const ZipArchive& archive, const ArchiveLayout& layout, ExportedProgram& program) {
  if (archive.Find(layout.example_inputs) == nullptr) return;
  TorchSaveFile saved(Nested(archive, layout.example_inputs), layout.example_inputs);
  const c10::IValue v = saved.Value(*saved.Root());
  if (layout.examples_are_args_kwargs) {
    program.example_inputs = Leaves(Positional(v, layout.example_inputs), /*tensors_only=*/true);
  } else if (v.isTuple() || v.isList()) {
    program.example_inputs = Leaves({v}, /*tensors_only=*/true);
  }
}

// Hex text (torch.export.save's extra files are str) as bytes.
std::string DecodeHex(const std::string& hex, const std::string& what) {
  if (hex.size() % 2 != 0) throw Refused(absl::StrCat(what, " has an odd number of digits (cut short?)"));
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Refused(absl::StrCat(what, " is not hexadecimal"));
  };
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1])));
  return bytes;
}

// graphprof.save_export's reference: its metadata, and torch.save((inputs,
// outputs)) as hex text.
void ReadReference(const ZipArchive& archive, const ArchiveLayout& layout, ExportedProgram& program) {
  const std::string meta_name = layout.extra_files + kReferenceMeta;
  if (archive.Find(meta_name) == nullptr) return;
  json m = json::parse(ReadText(archive, meta_name), nullptr, false);
  if (m.is_discarded() || !m.is_object()) throw Refused(absl::StrCat(kReferenceMeta, " is not a JSON object"));
  const std::string hex = ReadText(archive, layout.extra_files + kReferenceHex, "graphprof's reference: ");
  absl::StatusOr<ZipArchive> ref_archive = ZipArchive::Open(MemorySource(DecodeHex(hex, kReferenceHex)));
  if (!ref_archive.ok()) throw Refused(absl::StrCat("graphprof's reference: ", ref_archive.status().message()));
  TorchSaveFile saved(*std::move(ref_archive), "graphprof's reference");
  const c10::IValue v = saved.Value(*saved.Root());
  if (!v.isTuple() || v.toTupleRef().elements().size() != 2) throw Refused("graphprof's reference is not (inputs, outputs)");
  ExportReference reference;
  reference.inputs = Leaves(Positional(v.toTupleRef().elements()[0], "graphprof's reference inputs"), true);
  reference.outputs = Leaves({v.toTupleRef().elements()[1]}, /*tensors_only=*/false);
  if (m.contains("torch_version") && m.at("torch_version").is_string()) reference.torch_version = m.at("torch_version");
  if (m.contains("threads")) {
    const json& threads = m.at("threads");
    if (!threads.is_number_integer() || threads.get<int64_t>() < 1 || threads.get<int64_t>() > 100000) {
      throw Refused(absl::StrCat(kReferenceMeta, ": threads is ", threads.dump().substr(0, 40), ", not a thread count"));
    }
    reference.threads = threads.get<int>();
  }
  program.reference = std::move(reference);
}

}  // namespace

c10::IValue ExportReference::Expected() const {
  if (outputs.size() == 1) return outputs[0];
  return c10::ivalue::Tuple::create(std::vector<c10::IValue>(outputs.begin(), outputs.end()));
}

bool IsExportedProgramFile(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return false;
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(*source);
  return archive.ok() && FindLayout(*archive).has_value();
}

absl::StatusOr<ExportedProgram> LoadExportedProgram(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  return LoadExportedProgram(*std::move(source), path);
}

absl::StatusOr<ExportedProgram> LoadExportedProgram(std::shared_ptr<const ByteSource> source, const std::string& name) {
  auto refuse = [&](absl::string_view why) { return absl::InvalidArgumentError(absl::StrCat(name, ": ", why)); };
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(std::move(source));
  if (!archive.ok()) return refuse(archive.status().message());
  const std::optional<ArchiveLayout> layout = FindLayout(*archive);
  if (!layout.has_value()) {
    return refuse(absl::StrCat("not a torch.export program (no ", kLegacyProgram, " or ", kModelsFolder, "<name>",
                               kModelSuffix, ")"));
  }
  ExportedProgram program;
  program.layout = layout->description;
  try {
    const json j = ReadProgramJson(*archive, *layout, program);
    const std::map<std::string, at::Tensor> weights = ReadWeights(*archive, *layout, program);
    AssembleGraph(j, layout->program, weights, name, program);
    ReadExampleInputs(*archive, *layout, program);
    ReadReference(*archive, *layout, program);
  } catch (const Refused& e) {
    return refuse(e.what());
  } catch (const json::exception& e) {
    return refuse("the program JSON has a value of an unexpected type");
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, name, e);
  }
  return program;
}

absl::Status CheckExportedInputs(const std::vector<ExportedInput>& declared, const std::vector<c10::IValue>& inputs) {
  if (inputs.size() != declared.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", declared.size(), " input",
                                                   declared.size() == 1 ? "" : "s", " but ", inputs.size(),
                                                   inputs.size() == 1 ? " was" : " were", " given"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ExportedInput& d = declared[i];
    const std::string which = absl::StrCat("input ", i, " (", d.name, ")");
    if (!inputs[i].isTensor()) return absl::InvalidArgumentError(absl::StrCat(which, " must be a tensor"));
    const at::Tensor& t = inputs[i].toTensor();
    if (t.scalar_type() != d.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(which, " must be ", c10::toString(d.dtype), " but is ",
                                                     c10::toString(t.scalar_type())));
    }
    if (static_cast<size_t>(t.dim()) != d.sizes.size()) {
      return absl::InvalidArgumentError(absl::StrCat(which, " must have ", d.sizes.size(), " dimensions but has ", t.dim()));
    }
    for (size_t k = 0; k < d.sizes.size(); ++k) {
      if (d.sizes[k] >= 0 && t.size(static_cast<int64_t>(k)) != d.sizes[k]) {
        return absl::InvalidArgumentError(absl::StrCat(which, " must have size ", d.sizes[k], " in dimension ", k,
                                                       " (exported static) but has ", t.size(static_cast<int64_t>(k))));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace graphprof
