// Loading TorchScript: saved modules, TorchScript source, and IR text.
//
// Every function returns absl::Status on failure with a one-line message that
// names the file (or source) and what went wrong; nothing throws.
#ifndef GRAPHPROF_IR_LOADER_H_
#define GRAPHPROF_IR_LOADER_H_

#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "common/read_file.h"  // ReadFile, ReadFileInto, kMaxInputFileBytes

namespace graphprof {

// IR text nested deeper than this is refused (LibTorch's parser recurses per level).
constexpr size_t kMaxIrNesting = 20000;

// Loads a module saved with torch.jit.save / Module::save, on the CPU.
absl::StatusOr<torch::jit::Module> LoadModule(const std::string& path);

// Adds the TorchScript `source` (one or more `def`s) to `module` with
// Module::define. Parameters and submodules must be registered beforehand.
absl::Status DefineMethods(torch::jit::Module& module, absl::string_view source);

// Parses IR text ("graph(%x : Tensor): ...") into a graph. Class-typed values
// (`__torch__.*`) cannot be resolved here: print graphs without them.
absl::StatusOr<std::shared_ptr<torch::jit::Graph>> ParseGraph(absl::string_view ir_text);

// Reads `path` and parses it with ParseGraph.
absl::StatusOr<std::shared_ptr<torch::jit::Graph>> LoadGraphFile(const std::string& path);

// Reads inputs saved in Python with torch.save(x | (x, y) | [x, y], path): a
// tensor, a tuple or a list, returned as the list of positional inputs.
absl::StatusOr<std::vector<c10::IValue>> LoadInputs(const std::string& path);

// LoadInputs on the bytes of such a file; messages name it `name`.
absl::StatusOr<std::vector<c10::IValue>> ParseInputs(std::vector<char> bytes, const std::string& name);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_LOADER_H_
