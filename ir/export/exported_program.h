// A torch.export program (.pt2) as the IR graphprof runs: a
// torch::jit::Graph whose nodes are the program's ATen operators, with the
// exact overload each node's `target` names.
//
// Archive layouts read (zip_archive.h):
//   - torch.export.save of PyTorch 2.6-2.7: serialized_exported_program.json,
//     serialized_state_dict.pt (parameters and persistent buffers),
//     serialized_constants.pt (tensor constants, non-persistent buffers),
//     serialized_example_inputs.pt ((args, kwargs)), version, extra_files/;
//   - the PT2 archive of 2.8+ (PyTorch's docs/source/export/pt2_archive.md):
//     models/<name>.json (the same program schema), data/weights/ and
//     data/constants/ (raw blobs described by <name>_model_param_config.json
//     and <name>_model_constants_config.json), data/sample_inputs/<name>.pt,
//     extra/. The first model of the archive is read.
// Program schema major version 8 (minor versions 2 to 17+ seen); another
// major version, and anything of the schema graphprof does not know (an
// argument kind, a custom object, an input or output spec), is refused in
// one line naming it.
//
// The graph: one input per user input (tensors; a symbolic int input is
// refused); parameters, buffers and constants as prim::Constant tensors
// made from the archive's bytes (read once, straight into the tensors);
// every call_function node as the operator its target names, found in
// LibTorch's registry (an operator this LibTorch lacks is refused, naming
// it and the LibTorch version: a 2.6 program on the 1.13 build says so),
// its named arguments placed by the schema and the schema's defaults filled
// in (a number where the schema takes a Tensor, aten.add.Tensor(x, 1), as a
// wrapped-number tensor, as PyTorch's bindings pass it; a node whose
// arguments would select another overload is refused); numbers, strings
// and lists of them one constant node per value at the graph's top, as
// TorchScript pools them; list arguments as prim::ListConstruct, list
// results unpacked;
// symbolic sizes (aten.sym_size.int, _operator.add/sub/mul/floordiv on
// them) as aten::size and int arithmetic, so a dynamic batch runs with any
// batch. torch.ops.higher_order.cond becomes prim::If with its two
// branches' graphs as blocks; other higher-order operators (while_loop,
// map, wrap_with_set_grad_enabled, ...) are refused by name. The outputs:
// the one user output, or a tuple of them.
//
// Identity: each node's name (the program's, "conv2d_3"), its module path
// (the last entry of nn_module_stack: "layer1.0.conv1", as named_modules()
// names it) and its source (the innermost frame of stack_trace outside the
// torch package: "torchvision/models/resnet.py:92") are kept per node for
// GraphPlan (PreparedGraph::origins).
#ifndef GRAPHPROF_IR_EXPORT_EXPORTED_PROGRAM_H_
#define GRAPHPROF_IR_EXPORT_EXPORTED_PROGRAM_H_

#include <torch/script.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/export/zip_archive.h"
#include "ir/prepared_graph.h"

namespace graphprof {

// A user input as the program declares it.
struct ExportedInput {
  std::string name;
  c10::ScalarType dtype = c10::kFloat;
  std::vector<int64_t> sizes;  // -1 where symbolic (a dynamic dimension)
};

// Outputs PyTorch computed for the program (graphprof.save_export), and
// what they were computed with.
struct ExportReference {
  std::vector<c10::IValue> inputs;   // the user inputs, flattened (as the program's)
  std::vector<c10::IValue> outputs;  // the leaves, as the program returns them (tensors, None, numbers)
  std::string torch_version;         // "2.6.0+debian"
  int threads = -1;

  // The outputs as the program's graph returns them: the one leaf, or a
  // tuple of the leaves.
  c10::IValue Expected() const;
};

struct ExportedProgram {
  PreparedGraph prepared;            // the graph, named after the file
  std::vector<ExportedInput> inputs;
  std::string layout;                // "torch.export.save (2.6-2.7)" or "PT2 archive"
  std::string schema_version;        // "8.2"
  std::string torch_version;         // of the exporting PyTorch
  // The archive's example inputs (positional, flattened as the program's
  // user inputs: a dict argument gives its values; keyword inputs are
  // refused), when it has them.
  std::optional<std::vector<c10::IValue>> example_inputs;
  std::optional<ExportReference> reference;
  int64_t weight_bytes = 0;          // parameters, buffers and constants read
  int64_t parameters = 0;            // elements of the parameters
  // What a report of this program should say ("the program writes its input
  // x in place ...": each run starts from a copy of the inputs as given).
  // A program writing its own weights or buffers in place is refused.
  std::vector<std::string> notes;
};

// Reads `path` (InvalidArgument / NotFound naming it).
absl::StatusOr<ExportedProgram> LoadExportedProgram(const std::string& path);
absl::StatusOr<ExportedProgram> LoadExportedProgram(std::shared_ptr<const ByteSource> source, const std::string& name);

// Whether `path` is a zip archive holding an exported program (by its
// entries, not its name).
bool IsExportedProgramFile(const std::string& path);

// Checks `inputs` against the program's user inputs: count, tensors, dtype,
// rank and static sizes. InvalidArgument naming the first that differs.
absl::Status CheckExportedInputs(const std::vector<ExportedInput>& declared, const std::vector<c10::IValue>& inputs);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_EXPORT_EXPORTED_PROGRAM_H_
