// ProfileBeforeAfter: profile a module as it is (A) and after passes (B), on
// the same inputs in one process, and diff the two: the way to check a pass
// from a compiler codebase. Passes are LibTorch's by name (ir/passes.h:
// ParsePasses("freeze,optimize_for_inference")) or your own
// (GraphPass("my_pass", [](std::shared_ptr<torch::jit::Graph>& g) {...})).
//
// With `verify`, both outputs are compared with native forward of the
// unmodified module: A must be identical, B within the model's own float32
// rounding error measured against a float64 run (reference_check.h; rtol/atol
// where that cannot run or when asked); each report's Verification holds the
// errors.
//
// Interleaving (default): both warm up, then their timed runs alternate in
// ABBA blocks (A B B A A B B A ...), so that drift in the machine's state
// (frequency, temperature, a neighbour's load) reaches both sides alike;
// with observers (which serve one session at a time) A's runs all come
// first. BeforeAfter::order says which was used, and `drift` compares the
// first and second half of each side's run times. No pass (an empty list,
// --ab=none) compares the module with itself: an A/A test of the noise.
//
// Copies (interleaved only): each side runs on `copies` separately prepared
// copies of the module (its own clone of the weights, its own plan and
// runner), its timed runs split over them (10: 4, 3, 3) and taken in turns.
// Two copies of one module differ by a few percent on some nodes, run after
// run, for reasons of placement (where their tensors sit in memory): with
// one copy a side, an A/A comparison in one process called 5% of resnet18's
// node rows faster/slower (bench/results/aa_false_positives.txt). With several, each
// side's report merges its copies as run sources of this process, and the
// diff treats them as the unit of variation (NoiseModel::kProcesses,
// unpaired: two copies share nothing a pairing would remove; with --workers,
// paired worker by worker and copy by copy). The cost: `copies` times the
// warm-up and inspection runs and the weights' memory. --runs=auto
// (adaptive) uses one copy, and there are never more copies than runs.
// Graphs that are not modules (a torch.export program) get their copies as
// separately loaded plans (ProfileTwoPlans, ProfileAgainstGraph): with one
// plan a side, a program's A/A called 16% of node rows.
#ifndef GRAPHPROF_PROFILERS_BEFORE_AFTER_H_
#define GRAPHPROF_PROFILERS_BEFORE_AFTER_H_

#include <torch/script.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/graph_plan.h"
#include "ir/passes.h"
#include "profilers/profiler.h"
#include "profilers/side_runner.h"
#include "profilers/report/report.h"
#include "profilers/report/report_diff.h"
#include "profilers/report/verdict.h"

namespace graphprof {

struct BeforeAfterOptions {
  ProfileOptions profile;  // the same for A and B
  std::string method = "forward";
  DiffOptions diff;
  bool verify = true;
  // B's output after passes: against a float64 run of the module when
  // `float64_reference` (reference_check.h), else within rtol/atol.
  bool float64_reference = true;
  double rtol = 1e-4;
  double atol = 1e-5;
  bool interleave = true;
  // Copies of the module a side (see above); 1: A and B once each, the runs
  // being the unit of variation.
  int copies = 3;
};

// A side's second half of timed runs against its first half (the run
// times): a change beyond the noise means the machine drifted while it ran.
struct Drift {
  RowComparison halves;  // base: first half, current: second half
};

struct BeforeAfter {
  Report before;  // A: the module as given
  Report after;   // B: after the passes
  ReportDiff diff;
  // "ABBA" (interleaved) or "AB" (all of A's timed runs, then B's).
  std::string order;
  Drift before_drift;
  Drift after_drift;
  double speedup() const { return diff.speedup(); }  // A mean run time / B mean run time
};

absl::StatusOr<BeforeAfter> ProfileBeforeAfter(const torch::jit::Module& module, const std::vector<Pass>& passes,
                                               const std::vector<c10::IValue>& inputs,
                                               const BeforeAfterOptions& options = {});

// Run times of `report`'s second half of timed runs against its first half,
// in the order the runs ran (--ab's copies took turns; --workers' processes
// ran one after another).
// The copies a side gets under `options` (see Copies above): 1 with
// --runs=auto or without interleaving, never more than the runs.
int CopiesPerSide(const BeforeAfterOptions& options);
// Copy k's options when a side's runs are spread over `copies`: its share of
// the runs, as evenly as they go (10 over 3 copies is 4, 3, 3).
ProfileOptions CopyProfile(const ProfileOptions& side, int copies, int k);

// The migration diff (profile_graph --compare_model): A is `module`'s
// method, B `others`, another graph of the same model (its torch.export
// program, say) as separately loaded copies (own weights: one per copy,
// CopiesPerSide of them; A gets as many clones of the module), named
// `other_name` in messages; their timed runs interleaved in ABBA blocks;
// A's output identical to the module's, B's within the tolerance passes get
// (a float64 run of the module, or rtol/atol). The diff pairs nodes as it
// always does: by kind, module path and source line, then kind and module
// path, in execution order.
absl::StatusOr<BeforeAfter> ProfileAgainstGraph(const torch::jit::Module& module,
                                                std::vector<std::shared_ptr<const GraphPlan>> others,
                                                const std::string& other_name, const std::vector<c10::IValue>& inputs,
                                                const BeforeAfterOptions& options = {});

// Two sides given as plans (an A/A of one torch.export program: copies of
// it loaded separately), one runner per plan, the same number a side (the
// copies: the unit of variation when more than one), interleaved in ABBA
// blocks, diffed; no verification here: the last timed run's outputs are
// left in `a_output` and `b_output`.
absl::StatusOr<BeforeAfter> ProfileTwoPlans(std::vector<std::shared_ptr<const GraphPlan>> a_plans,
                                            std::vector<std::shared_ptr<const GraphPlan>> b_plans,
                                            const std::string& b_name, const std::vector<c10::IValue>& inputs,
                                            const BeforeAfterOptions& options, c10::IValue* a_output,
                                            c10::IValue* b_output);

// The same for sides given as runners, one per copy, the same number a side
// (SideRunner: graphs, or compiled programs run whole): interleaved in ABBA
// blocks, each side's copies merged, diffed; no verification here.
absl::StatusOr<BeforeAfter> ProfileTwoSides(std::vector<std::unique_ptr<SideRunner>> a,
                                            std::vector<std::unique_ptr<SideRunner>> b, const std::string& b_name,
                                            const BeforeAfterOptions& options, c10::IValue* a_output,
                                            c10::IValue* b_output);
Drift MeasureDrift(const Report& report, const VerdictOptions& options = {});
// "A: +0.4% [-1.2, 2.0] same; B: -0.3% [...] same" for notes.
std::string DescribeDrift(const BeforeAfter& ab);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_BEFORE_AFTER_H_
