// An AOTInductor package's compiled model loaded with LibTorch's own runner
// (torch::inductor::AOTIModelContainerRunnerCpu, LibTorch 2.6+: what
// AOTIModelPackageLoader runs once it has extracted the package).
//
// LoadAotiModel extracts the model's files into a private temporary
// directory, checks the library's ELF headers (ir/elf_check.h) and loads it
// once in a trial process (ir/library_probe.h: an initialiser that aborts,
// or a library built for another LibTorch, is refused in one line), loads
// it, then removes the directory: nothing is left on disk, whatever happens
// later. With LibTorch before 2.6 (no AOTInductor runtime) it refuses in one
// line naming the version it needs and the one it has.
#ifndef GRAPHPROF_SOURCES_COMPILED_AOTI_MODEL_H_
#define GRAPHPROF_SOURCES_COMPILED_AOTI_MODEL_H_

#include <torch/script.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/compiled/aoti_package.h"

namespace graphprof {

class AotiModel {
 public:
  virtual ~AotiModel() = default;
  // One run: the model's outputs for `inputs` (its flattened inputs).
  // InvalidArgument with the runtime's first line when it throws.
  virtual absl::StatusOr<std::vector<at::Tensor>> Run(const std::vector<at::Tensor>& inputs) = 0;
};

// Whether this build's LibTorch runs AOTInductor packages (2.6 or later).
bool AotiModelsSupported();

absl::StatusOr<std::unique_ptr<AotiModel>> LoadAotiModel(const AotiPackage& package);

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_COMPILED_AOTI_MODEL_H_
