// Profiling a model source (sources/model_source.h): the flows
// profile_graph and graphprof.profile share, whatever the input format.
//
//   ProfileSource   one session (session.h) of the source's graph on
//                   `inputs`, verified against the source's reference for
//                   them (none: the report says why, nothing is claimed),
//                   described by the source.
//   ProfileSourceAa an A/A: copies of the source a side (the first A copy
//                   is `source`, the others Reload()s, each with its own
//                   weights), interleaved; each side's output verified
//                   against the source's reference. A compiled source's
//                   copies run as CompiledRunners (side_runner.h).
//   ProfileSourceAgainst  the migration diff: A is `a`'s module (it must
//                   have one), B `b`'s graph as Reload()ed copies; B's
//                   output within the tolerance of A's (a float64 run of
//                   the module, or rtol/atol). When either side is a
//                   compiled program (an AOTInductor package), A may be any
//                   source: both sides run as copies of their sources, A
//                   verified against its own source's reference, B against
//                   A's output within the tolerance, a compiled side's rows
//                   given their nodes' work.
//
// `inputs` are completed already (ModelSource::CompleteInputs). Describing
// an A/B's sides is the caller's: DescribeModel (session.h) with its name,
// then ModelSource::Describe.
#ifndef GRAPHPROF_PROFILERS_SESSION_SOURCE_SESSION_H_
#define GRAPHPROF_PROFILERS_SESSION_SOURCE_SESSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "profilers/before_after.h"
#include "profilers/session/session.h"
#include "sources/model_source.h"

namespace graphprof {

// `session.verify` asks for verification; `session.check` is the source's.
absl::StatusOr<Report> ProfileSource(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                                     SessionOptions session, const Tolerance& tolerance);

absl::StatusOr<BeforeAfter> ProfileSourceAa(const ModelSource& source, const std::vector<c10::IValue>& inputs,
                                            const BeforeAfterOptions& options, const Tolerance& tolerance);

// An A/B of `passes`: a source with a module is ProfileBeforeAfter's (the
// module's clones, passes, training steps); one without takes no passes
// (InvalidArgument otherwise) and is ProfileSourceAa's.
absl::StatusOr<BeforeAfter> ProfileSourceAb(const ModelSource& source, const std::vector<Pass>& passes,
                                            const std::vector<c10::IValue>& inputs, const BeforeAfterOptions& options,
                                            const Tolerance& tolerance);

absl::StatusOr<BeforeAfter> ProfileSourceAgainst(const ModelSource& a, const ModelSource& b,
                                                 const std::vector<c10::IValue>& inputs,
                                                 const BeforeAfterOptions& options);

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_SESSION_SOURCE_SESSION_H_
