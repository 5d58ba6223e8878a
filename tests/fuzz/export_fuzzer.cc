// Fuzzes --model=PROGRAM.pt2 up to the point of running: the bytes are a
// torch.export archive -> LoadExportedProgram (the zip, the torch.save
// pickles and their storages, the program JSON, the graph) ->
// CheckExportedInputs of its example inputs -> GraphPlan::Build. The graph
// is never run (a fuzzed program could allocate without bound).
#include <cstddef>
#include <cstdint>
#include <string>

#include "interpreter/graph_plan.h"
#include "ir/export/exported_program.h"
#include "ir/export/zip_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphprof::ExportedProgram> program =
      graphprof::LoadExportedProgram(graphprof::MemorySource(std::move(bytes)), "fuzz.pt2");
  if (!program.ok()) return 0;
  if (program->example_inputs.has_value()) {
    graphprof::CheckExportedInputs(program->inputs, *program->example_inputs).IgnoreError();
  }
  absl::StatusOr<std::shared_ptr<const graphprof::GraphPlan>> plan = graphprof::GraphPlan::Build(program->prepared);
  return 0;
}
