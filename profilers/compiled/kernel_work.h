// The work of a compiled program's rows: the FLOPs and bytes its nodes did
// in a profile of the program it was compiled from (the eager graph, one
// inspection run), so that the roofline shows what each compiled kernel
// achieved against the machine's ceilings.
//
// Each program node's work is counted once, so that the rows' FLOPs add up
// to the program's, in one row naming it: a convolution's or a matrix
// product's (conv*, linear, mm, bmm, addmm, matmul, baddbmm, scaled dot
// product attention) in the first extern call naming it, where one does
// (Inductor calls those as extern kernels on the CPU; a generated kernel
// naming the same node packs its weight or fuses its epilogue); any other
// node's in the first generated kernel naming it (an extern call's comment
// may also name nodes whose outputs it reads), else the first row. Bytes
// are the nodes' as run eagerly (each node reading and writing its
// tensors): for a fused kernel, whose intermediates never reach memory, an
// upper bound. A row's input shapes are those of the node with the most
// FLOPs whose work it has (a convolution's in its extern call), else of its
// first node, as the eager run saw them.
#ifndef GRAPHPROF_PROFILERS_COMPILED_KERNEL_WORK_H_
#define GRAPHPROF_PROFILERS_COMPILED_KERNEL_WORK_H_

#include <string>

#include "profilers/compiled/compiled_plan.h"
#include "profilers/report/report.h"

namespace graphprof {

// The program node a row of `eager` (a profile of the program's graph) is:
// its name in the program ("conv2d_3"), from its label.
std::string ProgramNodeName(const NodeIdentity& identity);

// Declares the work quantities on `compiled` (a report of `plan`'s rows)
// and gives each row its nodes' work and input shapes from `eager`. Returns the share of the
// program's FLOPs that no row names (0 when every node with work is named).
double AddKernelWork(const Report& eager, const CompiledPlan& plan, Report& compiled);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_COMPILED_KERNEL_WORK_H_
