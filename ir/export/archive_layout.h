// Where each part of a torch.export program lives in its archive, for the
// two layouts graphprof reads, by name (as NativeRT's archive_spec names
// its paths):
//
//   torch.export.save of PyTorch 2.6-2.7      the PT2 archive (model <m>)
//   serialized_exported_program.json           models/<m>.json
//   serialized_state_dict.pt (torch.save)      data/weights/<m>_model_param_config.json + blobs
//   serialized_constants.pt (torch.save)       data/constants/<m>_model_constants_config.json + blobs
//   serialized_example_inputs.pt (args, kwargs) data/sample_inputs/<m>.pt (args)
//   extra_files/                               extra/
//
// graphprof.save_export's reference outputs are two extra files
// (kReferenceMeta, kReferenceHex) in the layout's extra-files folder.
#ifndef GRAPHPROF_IR_EXPORT_ARCHIVE_LAYOUT_H_
#define GRAPHPROF_IR_EXPORT_ARCHIVE_LAYOUT_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/export/zip_archive.h"

namespace graphprof::export_internal {

inline constexpr char kLegacyProgram[] = "serialized_exported_program.json";
inline constexpr char kLegacyStateDict[] = "serialized_state_dict.pt";
inline constexpr char kLegacyConstants[] = "serialized_constants.pt";
inline constexpr char kLegacyExampleInputs[] = "serialized_example_inputs.pt";
inline constexpr char kLegacyExtraFiles[] = "extra_files/";
inline constexpr char kModelsFolder[] = "models/";
inline constexpr char kModelSuffix[] = ".json";
inline constexpr char kWeightsFolder[] = "data/weights/";
inline constexpr char kWeightsConfigSuffix[] = "_model_param_config.json";
inline constexpr char kConstantsFolder[] = "data/constants/";
inline constexpr char kConstantsConfigSuffix[] = "_model_constants_config.json";
inline constexpr char kSampleInputsFolder[] = "data/sample_inputs/";
inline constexpr char kExtraFolder[] = "extra/";
inline constexpr char kReferenceMeta[] = "graphprof_reference.json";
inline constexpr char kReferenceHex[] = "graphprof_reference.hex";

// Weights described by a JSON config, their blobs in a folder.
struct WeightConfig {
  std::string config;       // "data/weights/<m>_model_param_config.json"
  std::string blob_folder;  // "data/weights/"
};

struct ArchiveLayout {
  std::string description;  // "torch.export.save (PyTorch 2.6-2.7 layout)", "PT2 archive (model m)"
  std::string model;        // the PT2 archive's model name; "" in the 2.6-2.7 layout
  std::string program;      // the program JSON
  std::vector<std::string> pickled_weights;  // torch.save files of named tensors
  std::vector<WeightConfig> weight_configs;
  std::string example_inputs;
  bool examples_are_args_kwargs = false;  // (args, kwargs), else args
  std::string extra_files;  // the extra files' folder
};

// The layout of `archive`, by its entries; nullopt when it holds no program.
std::optional<ArchiveLayout> FindLayout(const ZipArchive& archive);

}  // namespace graphprof::export_internal

#endif  // GRAPHPROF_IR_EXPORT_ARCHIVE_LAYOUT_H_
