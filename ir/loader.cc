#include "ir/loader.h"

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_util.h"
#include "ir/inputs_pickle.h"
#include "ir/operator_libraries.h"

namespace graphprof {
namespace {

// "line 3, column 17" for a parse error, from the parser's source excerpt.
std::string ParseErrorLocation(absl::string_view ir_text, absl::string_view message) {
  // LibTorch's parser reports "... here:\n<excerpt line>\n    ~~~ <--- HERE".
  std::vector<absl::string_view> lines = absl::StrSplit(message, '\n');
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t marker = lines[i].find("<--- HERE");
    if (marker == absl::string_view::npos) continue;
    const size_t column = lines[i].find('~');
    absl::string_view excerpt = lines[i - 1];
    if (column == absl::string_view::npos || excerpt.empty()) break;
    // Find the excerpt's line in the text.
    size_t line_number = 1;
    for (absl::string_view text_line : absl::StrSplit(ir_text, '\n')) {
      if (text_line == excerpt) return absl::StrCat("line ", line_number, ", column ", column + 1);
      ++line_number;
    }
    break;
  }
  return "";
}

// Nesting depth of IR text, from the indentation of its blocks (two spaces
// per level, as graphs print).
size_t IndentationDepth(absl::string_view ir_text) {
  size_t deepest = 0;
  for (absl::string_view line : absl::StrSplit(ir_text, '\n')) {
    size_t spaces = 0;
    while (spaces < line.size() && line[spaces] == ' ') ++spaces;
    deepest = std::max(deepest, spaces / 2);
  }
  return deepest;
}

// Bytes in memory for PyTorchStreamReader. LibTorch's MemoryReadAdapter (the
// one torch::jit::pickle_load uses) copies whatever a damaged archive's
// offsets ask for, past the end of the buffer; this one reads only what is
// there, so the zip reader sees a short read and throws.
class BytesReadAdapter final : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BytesReadAdapter(const std::vector<char>& bytes) : bytes_(bytes) {}
  size_t size() const override { return bytes_.size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* what) const override {
    if (pos >= bytes_.size()) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, bytes_.size() - pos));
    std::memcpy(buf, bytes_.data() + pos, n);
    return n;
  }

 private:
  const std::vector<char>& bytes_;
};

}  // namespace

absl::StatusOr<torch::jit::Module> LoadModule(const std::string& path) {
  // Checked first so that the message is ours, not the zip reader's; then
  // LibTorch reads the archive from the file itself (records on demand), so
  // the model is never held twice.
  absl::StatusOr<int64_t> size = RegularFileSize(path);
  if (!size.ok()) return size.status();
  try {
    return torch::jit::load(path, torch::kCPU);
  } catch (const std::exception& e) {
    absl::Status failed = StatusFromException(absl::StatusCode::kInvalidArgument,
                                              absl::StrCat(path, ": not a loadable TorchScript module"), e);
    // An operator from a library not loaded yet: say which and how.
    if (const std::string hint = UnknownOperatorHint(failed.message()); !hint.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": not a loadable TorchScript module: ", hint));
    }
    return failed;
  }
}

absl::Status DefineMethods(torch::jit::Module& module, absl::string_view source) {
  try {
    module.define(std::string(source));
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument,
                               absl::StrCat("TorchScript source for ", module.type()->name()->name()),
                               e);
  }
}

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> ParseGraph(absl::string_view ir_text) {
  const size_t depth = IndentationDepth(ir_text);
  if (depth > kMaxIrNesting) {
    return absl::InvalidArgumentError(absl::StrCat("IR text nests ", depth, " levels deep; graphprof reads up to ",
                                                   kMaxIrNesting));
  }
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    torch::jit::parseIR(std::string(ir_text), graph.get());
  } catch (const std::exception& e) {
    const std::string where = ParseErrorLocation(ir_text, e.what());
    const std::string text = ExceptionMessage(e);
    // The parser's message leads into a source excerpt ("... here:"); the
    // location above replaces it.
    absl::string_view trimmed = text;
    absl::ConsumeSuffix(&trimmed, ":");
    absl::ConsumeSuffix(&trimmed, " here");
    return absl::InvalidArgumentError(
        absl::StrCat("IR text does not parse", where.empty() ? "" : absl::StrCat(" at ", where), ": ", trimmed));
  }
  return graph;
}

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> LoadGraphFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraph(*text);
  if (!graph.ok()) return Annotate(graph.status(), path);
  return graph;
}

absl::StatusOr<std::vector<c10::IValue>> LoadInputs(const std::string& path) {
  std::vector<char> bytes;
  if (absl::Status read = ReadFileInto(path, bytes); !read.ok()) return read;
  return ParseInputs(std::move(bytes), path);
}

absl::StatusOr<std::vector<c10::IValue>> ParseInputs(std::vector<char> bytes, const std::string& name) {
  const std::string how = "save the inputs with torch.save(x | (x, y) | [x, y], FILE)";
  // (Python objects and dicts never reach the unpickler: CheckInputsPickle
  // names them.)
  auto not_inputs = [&](const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not inputs saved with torch.save (", ExceptionMessage(e), "); ", how));
  };
  // What torch::jit::pickle_load does, over BytesReadAdapter, with the
  // pickle checked (and made readable) by CheckInputsPickle first.
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
  try {
    reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(std::make_shared<BytesReadAdapter>(bytes));
  } catch (const std::exception& e) {
    return not_inputs(e);  // not a zip archive
  }
  // Tensor data the check read for its size (each record once), kept for
  // the unpickler. A record is read whole to learn its size: torch.save
  // stores records uncompressed, so that is at most the file; a compressed
  // one costs its full size here as in LibTorch.
  std::unordered_map<std::string, at::DataPtr> records;
  std::unordered_map<std::string, std::optional<uint64_t>> sizes;
  auto record_size = [&](const std::string& record) -> std::optional<uint64_t> {
    auto known = sizes.find(record);
    if (known != sizes.end()) return known->second;
    std::optional<uint64_t>& size = sizes[record];
    if (reader->hasRecord(record)) {
      auto [data, bytes] = reader->getRecord(record);
      records[record] = std::move(data);
      size = bytes;
    }
    return size;
  };
  auto read_record = [&](const std::string& key) -> at::DataPtr {
    const std::string record = "data/" + key;
    auto kept = records.find(record);
    if (kept != records.end() && kept->second) return std::move(kept->second);
    return std::get<0>(reader->getRecord(record));
  };
  std::string pickle;
  try {
    if (reader->hasRecord("constants.pkl") || reader->hasRecord("code/__torch__.py")) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": is a TorchScript module (torch.jit.save), not inputs: pass it as --model; ", how));
    }
    if (!reader->hasRecord("data.pkl")) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": not inputs saved with torch.save (the archive has no data.pkl); ", how));
    }
    auto [data, size] = reader->getRecord("data.pkl");
    absl::StatusOr<std::string> checked =
        CheckInputsPickle(absl::string_view(static_cast<const char*>(data.get()), size), record_size);
    if (!checked.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", checked.status().message(), "; ", how));
    pickle = *std::move(checked);
  } catch (const std::exception& e) {
    return not_inputs(e);  // a record the archive cannot give
  }
  c10::IValue value;
  try {
    size_t read = 0;
    auto reader_fn = [&](char* buffer, size_t n) -> size_t {
      n = std::min(n, pickle.size() - read);
      std::memcpy(buffer, pickle.data() + read, n);
      read += n;
      return n;
    };
    torch::jit::Unpickler unpickler(reader_fn, /*type_resolver=*/nullptr, /*obj_loader=*/nullptr, read_record,
                                    /*device=*/c10::nullopt);
    unpickler.set_version(reader->version());
    value = unpickler.parse_ivalue();
  } catch (const std::exception& e) {
    return not_inputs(e);
  }
  std::vector<c10::IValue> inputs;
  if (value.isTuple()) {
    for (const c10::IValue& v : value.toTupleRef().elements()) inputs.push_back(v);
  } else if (value.isList()) {
    for (const c10::IValue& v : value.toListRef()) inputs.push_back(v);
  } else if (value.isTensor()) {
    inputs.push_back(value);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": holds ", value.tagKind(), ", not inputs: ", how));
  }
  return inputs;
}

}  // namespace graphprof
