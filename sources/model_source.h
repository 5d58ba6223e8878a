// A model source: one input format's answer to everything a front end
// (profile_graph, graphprof.profile) needs before it profiles, so that the
// front ends hold no branch on the format:
//
//   * what runs: a prepared graph (GraphPlan::Build plans it), and the
//     module it came from where there is one (sizes, --ab's passes,
//     training steps, the float64 reference of a check after passes); or
//     a compiled program run whole (compiled(): an AOTInductor package);
//   * the inputs it supplies when none are given, and a note saying which;
//     given inputs checked against what it declares and completed as its
//     native call would (defaults, container types);
//   * the reference its output is verified against for given inputs: a
//     native run, or outputs saved with it (verified by the one rule of
//     profilers/verification/saved_outputs.h), or none and why;
//   * Reload(): a separately loaded copy, own weights, for the copies
//     --ab, --compare_model and the workers' processes profile;
//   * what it refuses (SourceAbilities, checked in one place: CheckRequest);
//   * its description in a report (notes, parameters).
//
// A format is a folder under sources/ with a SourceFormat (how it claims a
// path and opens it) and one line in sources/registry.cc; a format of a
// test or an embedder registers itself with RegisterSourceFormat. See
// docs/architecture.md, "An input format".
#ifndef GRAPHPROF_SOURCES_MODEL_SOURCE_H_
#define GRAPHPROF_SOURCES_MODEL_SOURCE_H_

#include <torch/script.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/prepared_graph.h"
#include "profilers/report/option_names.h"
#include "profilers/report/report.h"
#include "profilers/verification/reference_check.h"

namespace graphprof {

class CompiledProgram;  // profilers/compiled/compiled_profile.h

// What the caller asks of the source it opens: what to load and what it
// will do with it.
struct SourceRequest {
  std::string method = "forward";
  bool freeze = false;         // freeze before the passes
  std::string passes;          // applied when loading (ParsePasses' text)
  c10::Device device = c10::kCPU;
  uint64_t seed = 0;           // random weights (the zoo) and supplied inputs
  // What the caller will do with it: refused up front by CheckRequest when
  // the source cannot.
  bool passes_later = false;   // --ab with passes (needs a module)
  bool backward = false;       // training steps (needs a module)
  // The front end's names for its options, for refusals ("--method" vs
  // "method="); none by default.
  OptionNames names;
};

// What a source can do. CheckRequest refuses the rest, one line naming it.
struct SourceAbilities {
  std::string kind;            // "a torch.export program": the subject of refusals
  std::string label;           // "torch.export": a side's name in a migration diff
  bool passes = true;          // passes and freezing apply (it is a module)
  bool backward = true;        // training steps
  bool methods = true;         // methods other than forward
  bool devices = true;         // devices other than the CPU
};

struct SuppliedInputs {
  std::vector<c10::IValue> values;
  std::string note;            // "the archive's example inputs"; "" when there is nothing to say
};

// The caller's tolerance for checks that are not exact.
struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
  bool given = false;          // the caller asked for it (else the defaults)
};

// What a profiled output is verified against, for given inputs.
struct Reference {
  // The expected output for the inputs (the session passes a copy of them):
  // a native run, or the saved outputs returned.
  std::function<absl::StatusOr<c10::IValue>(const std::vector<c10::IValue>&)> run;
  OutputCheck check;           // identical or within a tolerance, and what `run` is
  std::string why_not;         // no reference (run unset): why
  bool available() const { return static_cast<bool>(run); }
};

class ModelSource {
 public:
  virtual ~ModelSource() = default;

  // "model.pt", "zoo:resnet18", "model.pt:predict", "graph.ir".
  virtual std::string name() const = 0;
  virtual const SourceAbilities& abilities() const = 0;
  // What runs. Planning copies it (GraphPlan::Build); the source keeps its own.
  virtual const PreparedGraph& prepared() const = 0;
  // The module as loaded (in eval mode), where the source is one.
  virtual const torch::jit::Module* module() const { return nullptr; }
  // What runs when the source is a compiled program run whole (an
  // AOTInductor package: sources/compiled/): ProfileSource profiles it
  // instead of planning prepared(), which then only describes the inputs.
  // Null for graphs graphprof interprets.
  virtual CompiledProgram* compiled() const { return nullptr; }
  // Where the module and the inputs live.
  virtual c10::Device device() const { return c10::kCPU; }

  // The inputs it supplies when the caller gives none: NotFound when it
  // supplies none (the caller says what to pass).
  virtual absl::StatusOr<SuppliedInputs> SupplyInputs(uint64_t seed) const;
  // `inputs` checked against what the source declares and completed as its
  // native call would; `note` gets what was added ("targets=None"), or "".
  // InvalidArgument naming the source and the first input that is wrong.
  virtual absl::StatusOr<std::vector<c10::IValue>> CompleteInputs(std::vector<c10::IValue> inputs,
                                                                  std::string* note) const;
  // The reference for `inputs` (already completed).
  virtual Reference ReferenceFor(const std::vector<c10::IValue>& inputs, const Tolerance& tolerance) const = 0;
  // A copy loaded again: its own weights and graph, nothing shared.
  virtual absl::StatusOr<std::unique_ptr<ModelSource>> Reload() const = 0;
  // What a report of it adds: notes (what it is, what it does to its
  // inputs), its parameter count where the module cannot tell.
  virtual void Describe(Report& report) const {}
};

// Refuses, in one line naming `subject`, a request a source of abilities
// `can` cannot serve (a method, a device, passes, training steps): the one
// check of abilities, which a front end may make before opening anything
// (Python's profile(ep), with the export format's, before saving it).
absl::Status CheckAbilities(const std::string& subject, const SourceAbilities& can, const SourceRequest& request);
// CheckAbilities of an opened source, named by its name().
absl::Status CheckRequest(const ModelSource& source, const SourceRequest& request);
// The same for what the caller does with `source` after loading it.
absl::Status CheckPassesLater(const ModelSource& source);

// A format: how it recognises a path and opens it.
struct SourceFormat {
  std::string name;  // "torchscript", "ir", "zoo", "torch.export"; a front end may name it (--ir, --zoo)
  // Whether `path` is this format's (by name or contents; cheap).
  std::function<bool(const std::string& path)> claims;
  std::function<absl::StatusOr<std::unique_ptr<ModelSource>>(const std::string& path, const SourceRequest& request)>
      open;
};

// Adds a format, consulted before the built-in ones (a test's or an
// embedder's; call it before opening sources, e.g. from a static
// initializer). Returns true, for `static const bool registered = ...`.
bool RegisterSourceFormat(SourceFormat format);

// Opens `path` with the format named `format`, or ("") the first that
// claims it: registered ones, then sources/registry.cc's list (TorchScript
// last: it claims every other path). CheckRequest is applied.
absl::StatusOr<std::unique_ptr<ModelSource>> OpenModelSource(const std::string& path, const SourceRequest& request,
                                                             const std::string& format = "");

}  // namespace graphprof

#endif  // GRAPHPROF_SOURCES_MODEL_SOURCE_H_
