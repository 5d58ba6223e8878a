// The check after passes (profilers/verification/reference_check.h): outputs against a
// float64 run, each floating leaf on its own scale, everything else exact,
// NaN and infinities matched exactly, and never a pass that judged nothing.
#include "profilers/verification/reference_check.h"
#include "profilers/verification/saved_outputs.h"
#include "profilers/verification/verify.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <random>

#include "ir/ivalue_util.h"

namespace graphprof {
namespace {

c10::IValue Tuple(std::vector<c10::IValue> elements) { return c10::ivalue::Tuple::create(std::move(elements)); }

// VerifyAgainstDouble with a usable reference.
Verification Check(const c10::IValue& reference64, const c10::IValue& native, const c10::IValue& actual,
                   const std::string& reference) {
  absl::StatusOr<Verification> v = VerifyAgainstDouble(reference64, native, actual, reference);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : Verification{};
}

// A float64 reference and its float32 rounding (what the unmodified module gives).
struct Leaf {
  at::Tensor reference, native;
};
Leaf MakeLeaf(std::vector<int64_t> sizes, double scale, int seed) {
  torch::manual_seed(seed);
  const at::Tensor r = torch::randn(sizes, torch::kDouble) * scale;
  return {r, r.to(torch::kFloat)};
}

TEST(ReferenceCheckTest, RoundingPassesAndARealChangeFails) {
  const Leaf x = MakeLeaf({64, 64}, 10, 1);
  // A reordered sum: within a few float32 ulps of the reference.
  const at::Tensor rounded = (x.reference * (1 + 2e-7)).to(torch::kFloat);
  Verification v = Check(x.reference, x.native, rounded, "m");
  EXPECT_FALSE(v.identical);
  EXPECT_TRUE(v.passed()) << v.detail;
  EXPECT_EQ(v.compared, 1);
  // A weight perturbed by 1e-3 of its value.
  v = Check(x.reference, x.native, (x.reference * (1 + 1e-3)).to(torch::kFloat), "m");
  EXPECT_FALSE(v.passed()) << v.detail;
  EXPECT_TRUE(Check(x.reference, x.native, x.native.clone(), "m").identical);
}

// Reviewed: one NaN in the reference made std::max drop the whole tensor,
// so a completely wrong output passed.
TEST(ReferenceCheckTest, ANaNDoesNotHideTheRestOfTheTensor) {
  Leaf x = MakeLeaf({100}, 1, 2);
  x.reference[0] = std::numeric_limits<double>::quiet_NaN();
  x.native = x.reference.to(torch::kFloat);
  at::Tensor wrong = x.native * 2;  // NaN stays NaN at 0, everything else wrong
  Verification v = Check(x.reference, x.native, wrong, "m");
  EXPECT_FALSE(v.passed()) << v.detail;
  // NaN where the float32 module has none: a failure too.
  at::Tensor nan_added = x.native.clone();
  nan_added[5] = std::numeric_limits<float>::quiet_NaN();
  v = Check(x.reference, x.native, nan_added, "m");
  EXPECT_FALSE(v.passed());
  EXPECT_FALSE(v.detail.empty());
  // NaN and infinity at the same places, the rest rounded: passes.
  x.reference[1] = std::numeric_limits<double>::infinity();
  x.native = x.reference.to(torch::kFloat);
  at::Tensor rounded = (x.reference * (1 + 1e-7)).to(torch::kFloat);
  v = Check(x.reference, x.native, rounded, "m");
  EXPECT_TRUE(v.passed()) << v.detail;
  // An infinity that became a large finite number: not the same value.
  at::Tensor finite = rounded.clone();
  finite[1] = 3e38f;
  EXPECT_FALSE(Check(x.reference, x.native, finite, "m").passed());
}

// Reviewed: integer outputs were compared at a tolerance of 1e300, so a
// changed argmax passed.
TEST(ReferenceCheckTest, OutputsThatAreNotFloatingMustBeIdentical) {
  const Leaf x = MakeLeaf({8}, 1, 3);
  const at::Tensor index = torch::tensor({3}, torch::kLong);
  const c10::IValue reference = Tuple({x.reference, index});
  const c10::IValue native = Tuple({x.native, index});
  const at::Tensor rounded = (x.reference * (1 + 1e-7)).to(torch::kFloat);
  Verification v = Check(reference, native, Tuple({rounded, index.clone()}), "m");
  EXPECT_TRUE(v.passed()) << v.detail;
  EXPECT_EQ(v.compared, 2);
  v = Check(reference, native, Tuple({rounded, torch::tensor({4}, torch::kLong)}), "m");
  EXPECT_FALSE(v.passed()) << v.detail;
  EXPECT_NE(v.detail.find("compared exactly"), std::string::npos) << v.detail;
  // Only integers, changed: fails (nothing floating to judge is no pass).
  v = Check(index, index, torch::tensor({4}, torch::kLong), "m");
  EXPECT_FALSE(v.passed());
  v = Check(c10::IValue(int64_t{3}), c10::IValue(int64_t{3}), c10::IValue(int64_t{4}), "m");
  EXPECT_FALSE(v.passed());
}

// Reviewed: max() of an empty tensor threw.
TEST(ReferenceCheckTest, EmptyOutputsAreFine) {
  const Leaf x = MakeLeaf({4}, 1, 4);
  const at::Tensor empty64 = torch::zeros({0, 4}, torch::kDouble);
  const at::Tensor empty = torch::zeros({0, 4});
  const at::Tensor rounded = (x.reference * (1 + 1e-7)).to(torch::kFloat);
  Verification v = Check(Tuple({empty64, x.reference}), Tuple({empty, x.native}),
                                       Tuple({empty.clone(), rounded}), "m");
  EXPECT_TRUE(v.passed()) << v.detail;
}

// Reviewed: one scale for all outputs let a small output beside large
// logits be 1% wrong.
TEST(ReferenceCheckTest, EachOutputOnItsOwnScale) {
  const Leaf big = MakeLeaf({256}, 100, 5);
  const Leaf small = MakeLeaf({16}, 1e-3, 6);
  const c10::IValue reference = Tuple({big.reference, small.reference});
  const c10::IValue native = Tuple({big.native, small.native});
  const at::Tensor big_rounded = (big.reference * (1 + 1e-7)).to(torch::kFloat);
  Verification v = Check(reference, native,
                                       Tuple({big_rounded, (small.reference * 1.01).to(torch::kFloat)}), "m");
  EXPECT_FALSE(v.passed()) << v.detail;
  EXPECT_NE(v.detail.find("output[1]"), std::string::npos) << v.detail;
  v = Check(reference, native, Tuple({big_rounded, (small.reference * (1 + 1e-7)).to(torch::kFloat)}),
                          "m");
  EXPECT_TRUE(v.passed()) << v.detail;
}

// Reviewed: when the float32 module is far from its float64 run (random
// ops, dtype-dependent code), 16 times that error let anything pass.
TEST(ReferenceCheckTest, AReferenceFarFromTheModuleIsNoYardstick) {
  const Leaf x = MakeLeaf({32}, 1, 7);
  const at::Tensor unrelated = torch::randn({32});  // the float32 "module" drew other numbers
  absl::StatusOr<Verification> v = VerifyAgainstDouble(x.reference, unrelated, unrelated * 3, "m");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition) << v.status();
  EXPECT_NE(v.status().message().find("more than rounding"), std::string::npos) << v.status();
  // Shaped unlike the module's output: no reference either.
  v = VerifyAgainstDouble(Tuple({x.reference}), x.native, x.native * 2, "m");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition) << v.status();
}

// Reviewed: dict entries were paired by position, so a pass that built the
// dict in another order had each value judged against another key's.
TEST(ReferenceCheckTest, DictEntriesPairByKey) {
  const Leaf a = MakeLeaf({8}, 1, 8);
  const Leaf b = MakeLeaf({8}, 100, 9);
  auto dict = [](std::vector<std::pair<std::string, at::Tensor>> entries) {
    c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
    for (auto& [k, t] : entries) d.insert(k, t);
    return c10::IValue(d);
  };
  const c10::IValue reference = dict({{"a", a.reference}, {"b", b.reference}});
  const c10::IValue native = dict({{"a", a.native}, {"b", b.native}});
  const at::Tensor a_rounded = (a.reference * (1 + 1e-7)).to(torch::kFloat);
  const at::Tensor b_rounded = (b.reference * (1 + 1e-7)).to(torch::kFloat);
  Verification v = Check(reference, native, dict({{"b", b_rounded}, {"a", a_rounded}}), "m");
  EXPECT_TRUE(v.passed()) << v.detail;
  v = Check(reference, native, dict({{"b", b_rounded}, {"a", a_rounded * 1.01}}), "m");
  EXPECT_FALSE(v.passed()) << v.detail;
  EXPECT_NE(v.detail.find("output['a']"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace graphprof

namespace graphprof {
namespace {

// saved_outputs.h's one rule, at a given version and thread count (both
// front ends reach it through PlanSavedOutputsCheck).
// ToleranceScale: the worst element's error in units of atol + rtol |e|.
TEST(ToleranceScaleTest, TheWorstElementInUnitsOfTheTolerance) {
  const double kInf = std::numeric_limits<double>::infinity();
  const at::Tensor e = torch::tensor({1.0f, 100.0f});
  EXPECT_EQ(ToleranceScale(e, e.clone(), 1e-4, 1e-5), 0);
  // 1e-5 / (1e-5 + 1e-4) and 0.002 / (1e-5 + 0.01): the second is the worst.
  const at::Tensor a = torch::tensor({1.0 + 1e-5, 100.002}, torch::kDouble);
  EXPECT_NEAR(ToleranceScale(e.to(torch::kDouble), a, 1e-4, 1e-5), 0.002 / 0.01001, 1e-9);
  EXPECT_EQ(ToleranceScale(e, torch::tensor({1.0f}), 1e-4, 1e-5), kInf);  // shape
  EXPECT_EQ(ToleranceScale(e, e.to(torch::kDouble), 1e-4, 1e-5), kInf);   // dtype
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(ToleranceScale(torch::tensor({nan, 1.0f}), torch::tensor({nan, 1.0f}), 1e-4, 1e-5), 0);
  EXPECT_EQ(ToleranceScale(torch::tensor({nan, 1.0f}), torch::tensor({1.0f, 1.0f}), 1e-4, 1e-5), kInf);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ToleranceScale(torch::tensor({inf}), torch::tensor({inf}), 1e-4, 1e-5), 0);
  EXPECT_EQ(ToleranceScale(torch::tensor({inf}), torch::tensor({-inf}), 1e-4, 1e-5), kInf);
  EXPECT_EQ(ToleranceScale(torch::tensor({3}), torch::tensor({3}), 1e-4, 1e-5), 0);  // integers: exact
  EXPECT_EQ(ToleranceScale(torch::tensor({3}), torch::tensor({4}), 1e-4, 1e-5), kInf);
  // Tuples: the worst leaf; another structure: infinity.
  EXPECT_NEAR(ToleranceScale(Tuple({e, e.to(torch::kDouble)}), Tuple({e, a}), 1e-4, 1e-5), 0.002 / 0.01001, 1e-9);
  EXPECT_EQ(ToleranceScale(Tuple({e}), Tuple({e, e}), 1e-4, 1e-5), kInf);
}

// Against the check itself (CompareIValues, numpy.isclose's rule): at most 1
// exactly when within the tolerance, on random perturbations of every size.
TEST(ToleranceScaleTest, AtMostOneExactlyWhenWithinTheTolerance) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> log_size(-9, -1);
  int within = 0, outside = 0;
  for (int trial = 0; trial < 400; ++trial) {
    torch::manual_seed(trial);
    const at::Tensor e = torch::randn({64}, torch::kDouble) * 3;
    const at::Tensor a = e + torch::randn({64}, torch::kDouble) * std::pow(10.0, log_size(rng));
    const double scale = ToleranceScale(e, a, 1e-4, 1e-5);
    const bool is_within = CompareIValues(e, a, 1e-4, 1e-5).within_tolerance;
    if (std::fabs(scale - 1) < 1e-9) continue;  // on the boundary, rounding decides
    EXPECT_EQ(scale <= 1, is_within) << trial << " scale " << scale;
    (is_within ? within : outside) += 1;
  }
  EXPECT_GT(within, 50);
  EXPECT_GT(outside, 50);
}

TEST(SavedOutputsRuleTest, IdenticalOnlyForTheSameRuntimeAndNoTolerance) {
  SavedOutputs saved;
  saved.inputs = {torch::ones({2})};
  saved.outputs = torch::ones({2}) * 2;
  saved.computed_by = "PyTorch 2.6.0's ep.module()";
  saved.saved_by = "graphprof.save_export";
  saved.torch_version = "2.6.0+debian";
  saved.threads = 2;
  const std::vector<c10::IValue> same = {torch::ones({2})};

  SavedOutputsCheck plan = PlanSavedOutputsCheck(saved, same, 1e-5, 1e-8, false, "2.6.0", 2);
  ASSERT_TRUE(plan.possible);
  EXPECT_FALSE(plan.check.transformed);  // identical required
  EXPECT_EQ(plan.check.reference, "PyTorch 2.6.0's ep.module() (graphprof.save_export, 2 threads)");
  EXPECT_TRUE(plan.expected.toTensor().equal(torch::ones({2}) * 2));

  plan = PlanSavedOutputsCheck(saved, same, 1e-5, 1e-8, false, "2.6.0", 1);
  EXPECT_TRUE(plan.check.transformed);
  EXPECT_EQ(plan.check.reference, "PyTorch 2.6.0's ep.module() (graphprof.save_export, 2 threads; here LibTorch "
                                  "2.6.0, 1 thread: compared within rtol/atol)");
  EXPECT_DOUBLE_EQ(plan.check.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(plan.check.atol, 1e-8);

  EXPECT_TRUE(PlanSavedOutputsCheck(saved, same, 1e-5, 1e-8, false, "2.7.0", 2).check.transformed);
  plan = PlanSavedOutputsCheck(saved, same, 1e-3, 1e-4, true, "2.6.0", 2);
  EXPECT_TRUE(plan.check.transformed);
  EXPECT_EQ(plan.check.reference,
            "PyTorch 2.6.0's ep.module() (graphprof.save_export, 2 threads; compared within the rtol/atol given)");
  saved.threads = -1;  // not recorded: never the same runtime
  EXPECT_TRUE(PlanSavedOutputsCheck(saved, same, 1e-5, 1e-8, false, "2.6.0", 2).check.transformed);

  plan = PlanSavedOutputsCheck(saved, {torch::zeros({2})}, 1e-5, 1e-8, false, "2.6.0", 2);
  EXPECT_FALSE(plan.possible);
  EXPECT_EQ(plan.why_not, "the reference outputs saved with the model (graphprof.save_export) are for other inputs");
}

}  // namespace
}  // namespace graphprof
