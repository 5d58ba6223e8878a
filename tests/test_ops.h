// Operators registered for tests (namespace graphprof_test), usable from IR
// text and TorchScript source (torch.ops.graphprof_test.<name>):
//
//   advance(Tensor(a) x, int ns) -> Tensor(a)    advances TestClock() by ns
//   busy_wait(Tensor(a) x, int us) -> Tensor(a)  spins for us microseconds
//   fail_if(Tensor(a) x, bool fail) -> Tensor(a) throws "graphprof_test failure" when fail
//   timed(Tensor x, int forward_ns, int backward_ns) -> Tensor
//                                                a copy of x; advances TestClock() by forward_ns,
//                                                and by backward_ns when its backward runs
// (in TorchScript source defined with DefineWithTestOps: graphprof_test.advance(x, 5)).
#ifndef GRAPHPROF_TESTS_TEST_OPS_H_
#define GRAPHPROF_TESTS_TEST_OPS_H_

#include <torch/script.h>

#include <memory>
#include <string>

#include "profilers/time_source.h"

namespace graphprof::testing {

// The clock graphprof_test::advance moves (shared by all tests in a binary).
std::shared_ptr<ManualClock> TestClock();

// Module::define with `graphprof_test.<op>(...)` resolvable in the source
// (the C++ native resolver only knows `torch`).
void DefineWithTestOps(torch::jit::Module& module, const std::string& source);

}  // namespace graphprof::testing

#endif  // GRAPHPROF_TESTS_TEST_OPS_H_
