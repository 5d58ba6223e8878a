#include "tests/test_ops.h"

#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/library.h>

#include <chrono>

namespace graphprof::testing {

std::shared_ptr<ManualClock> TestClock() {
  static auto* clock = new std::shared_ptr<ManualClock>(std::make_shared<ManualClock>());
  return *clock;
}

namespace {

struct TestOpsResolver : torch::jit::Resolver {
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string& name, torch::jit::GraphFunction& m,
                                                         const torch::jit::SourceRange& loc) override {
    if (name == "graphprof_test") return std::make_shared<torch::jit::BuiltinModule>("graphprof_test");
    return torch::jit::nativeResolver()->resolveValue(name, m, loc);
  }
  c10::TypePtr resolveType(const std::string& name, const torch::jit::SourceRange& loc) override {
    return torch::jit::nativeResolver()->resolveType(name, loc);
  }
};

at::Tensor Advance(const at::Tensor& x, int64_t ns) {
  TestClock()->Advance(ns);
  return x;
}

at::Tensor BusyWait(const at::Tensor& x, int64_t us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
  return x;
}

at::Tensor FailIf(const at::Tensor& x, bool fail) {
  TORCH_CHECK(!fail, "graphprof_test failure");
  return x;
}

at::Tensor TimedCpu(const at::Tensor& x, int64_t forward_ns, int64_t /*backward_ns*/) {
  TestClock()->Advance(forward_ns);
  return x.clone();
}

// timed's autograd: its backward advances the clock by backward_ns.
struct TimedFunction : torch::autograd::Function<TimedFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, int64_t forward_ns,
                            int64_t backward_ns) {
    ctx->saved_data["backward_ns"] = backward_ns;
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return TimedCpu(x, forward_ns, backward_ns);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    TestClock()->Advance(ctx->saved_data["backward_ns"].toInt());
    return {grads[0], at::Tensor(), at::Tensor()};
  }
};

at::Tensor TimedAutograd(const at::Tensor& x, int64_t forward_ns, int64_t backward_ns) {
  return TimedFunction::apply(x, forward_ns, backward_ns);
}

}  // namespace

void DefineWithTestOps(torch::jit::Module& module, const std::string& source) {
  module.define(source, std::make_shared<TestOpsResolver>());
}

TORCH_LIBRARY(graphprof_test, m) {
  m.def("advance(Tensor(a) x, int ns) -> Tensor(a)", &Advance);
  m.def("busy_wait(Tensor(a) x, int us) -> Tensor(a)", &BusyWait);
  m.def("fail_if(Tensor(a) x, bool fail) -> Tensor(a)", &FailIf);
  m.def("timed(Tensor x, int forward_ns, int backward_ns) -> Tensor");
}

TORCH_LIBRARY_IMPL(graphprof_test, CPU, m) { m.impl("timed", &TimedCpu); }
TORCH_LIBRARY_IMPL(graphprof_test, Autograd, m) { m.impl("timed", &TimedAutograd); }

}  // namespace graphprof::testing
