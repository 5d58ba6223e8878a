#include "ir/export/archive_layout.h"

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphprof::export_internal {

std::optional<ArchiveLayout> FindLayout(const ZipArchive& archive) {
  ArchiveLayout layout;
  if (archive.Find(kLegacyProgram) != nullptr) {
    layout.description = "torch.export.save (PyTorch 2.6-2.7 layout)";
    layout.program = kLegacyProgram;
    layout.pickled_weights = {kLegacyStateDict, kLegacyConstants};
    layout.example_inputs = kLegacyExampleInputs;
    layout.examples_are_args_kwargs = true;
    layout.extra_files = kLegacyExtraFiles;
    return layout;
  }
  // The PT2 archive: the first models/<m>.json names the model.
  for (const ZipArchive::Entry& e : archive.entries()) {
    if (!absl::StartsWith(e.name, kModelsFolder) || !absl::EndsWith(e.name, kModelSuffix)) continue;
    const size_t prefix = std::strlen(kModelsFolder);
    const size_t suffix = std::strlen(kModelSuffix);
    if (e.name.size() <= prefix + suffix) continue;
    layout.model = e.name.substr(prefix, e.name.size() - prefix - suffix);
    layout.description = absl::StrCat("PT2 archive (model ", layout.model, ")");
    layout.program = e.name;
    layout.weight_configs = {
        {absl::StrCat(kWeightsFolder, layout.model, kWeightsConfigSuffix), kWeightsFolder},
        {absl::StrCat(kConstantsFolder, layout.model, kConstantsConfigSuffix), kConstantsFolder},
    };
    layout.example_inputs = absl::StrCat(kSampleInputsFolder, layout.model, ".pt");
    layout.extra_files = kExtraFolder;
    return layout;
  }
  return std::nullopt;
}

}  // namespace graphprof::export_internal
