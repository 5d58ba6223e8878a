#include "ir/loader.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/status_util.h"

namespace graphprof {
namespace {

absl::Status OpenError(const std::string& path, int err) {
  std::string what = absl::StrCat(path, ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(what);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(what);
  return absl::InvalidArgumentError(what);
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return OpenError(path, errno != 0 ? errno : ENOENT);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  // Directories open fine with ifstream but read nothing and fail.
  if (buffer.str().empty() && in.fail()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a readable file"));
  }
  return buffer.str();
}

absl::StatusOr<torch::jit::Module> LoadModule(const std::string& path) {
  // Check the file first so that the message is ours, not the zip reader's.
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  try {
    std::istringstream stream(*bytes);
    torch::jit::Module module = torch::jit::load(stream, torch::kCPU);
    return module;
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument,
                               absl::StrCat(path, ": not a loadable TorchScript module"), e);
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
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    torch::jit::parseIR(std::string(ir_text), graph.get());
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument, "IR text does not parse", e);
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
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  c10::IValue value;
  try {
    value = torch::jit::pickle_load(std::vector<char>(bytes->begin(), bytes->end()));
  } catch (const std::exception& e) {
    return StatusFromException(absl::StatusCode::kInvalidArgument,
                               absl::StrCat(path, ": not inputs saved with torch.save"), e);
  }
  std::vector<c10::IValue> inputs;
  if (value.isTuple()) {
    for (const c10::IValue& v : value.toTupleRef().elements()) inputs.push_back(v);
  } else if (value.isList()) {
    for (const c10::IValue& v : value.toListRef()) inputs.push_back(v);
  } else if (value.isTensor()) {
    inputs.push_back(value);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": expected a tensor, a tuple or a list of inputs but found ", value.tagKind()));
  }
  return inputs;
}

}  // namespace graphprof
