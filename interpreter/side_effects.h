// Operators that act outside the process: they write or read files, or talk
// to other processes. Profiling runs a model many times (warm-up, timed
// runs, the native reference, A/B copies, workers), so such a node would
// write its file or send its message every time, unasked. GraphPlan::Build
// refuses them (PlanOptions::allow_side_effects turns that off).
//
// Not side effects here: warnings and prints (they run, and front ends fold
// their text onto one line), random number generation, module attribute
// writes (prim::SetAttr: inside the process, serialised by the plan).
//
// How the list was found: every schema LibTorch 1.13 registers
// (torch._C._jit_get_all_schemas()) whose arguments include a string was
// read, with the kinds torch::jit::Node::hasSideEffects() names; the
// operators below are those whose string is a path or that reach another
// process. tests/side_effects_test.cc enumerates the registry of the LibTorch
// it runs on and fails on a new operator taking a file name or of a
// distributed namespace that the list does not cover.
#ifndef GRAPHPROF_INTERPRETER_SIDE_EFFECTS_H_
#define GRAPHPROF_INTERPRETER_SIDE_EFFECTS_H_

#include "absl/strings/string_view.h"

namespace graphprof {

// What an operator of kind `qualified_name` ("aten::save") does outside the
// process ("writes a file (torch.save)"), or "" when nothing.
absl::string_view SideEffectOf(absl::string_view qualified_name);

}  // namespace graphprof

#endif  // GRAPHPROF_INTERPRETER_SIDE_EFFECTS_H_
