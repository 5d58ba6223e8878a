// ConvertToType (ir/ivalue_util.h): inputs read from a torch.save file come
// back as generic containers (a list is List[Any], a dict Dict[Any, Any]);
// they are converted to the types the method's schema asks for, and what
// does not fit is refused naming the argument and the element.
#include "ir/ivalue_util.h"

#include <gtest/gtest.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/torch.h>

#include <cmath>
#include <string>

#include "absl/strings/match.h"

namespace graphprof {
namespace {

c10::TypePtr Parse(const std::string& annotation) {
  // The type of a function's only argument, as its schema says.
  return torch::jit::parseSchema("f(" + annotation + " x) -> ()").arguments()[0].type();
}

TEST(ConvertToTypeTest, GenericListsBecomeTypedLists) {
  c10::impl::GenericList any(c10::AnyType::get());
  any.push_back(torch::ones({2}));
  any.push_back(torch::zeros({3}));
  absl::StatusOr<c10::IValue> converted = ConvertToType(c10::IValue(any), Parse("Tensor[]"), "images");
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_TRUE(converted->type()->isSubtypeOf(*Parse("Tensor[]"))) << converted->type()->annotation_str();
  ASSERT_EQ(converted->toListRef().size(), 2u);
  EXPECT_TRUE(converted->toListRef()[1].toTensor().equal(torch::zeros({3})));
  // A tuple of tensors too (torch.save of a tuple).
  absl::StatusOr<c10::IValue> from_tuple =
      ConvertToType(c10::ivalue::Tuple::create({torch::ones({1})}), Parse("Tensor[]"), "images");
  ASSERT_TRUE(from_tuple.ok()) << from_tuple.status();
  EXPECT_EQ(from_tuple->toListRef().size(), 1u);
}

TEST(ConvertToTypeTest, GenericDictsBecomeTypedDicts) {
  c10::impl::GenericDict any(c10::AnyType::get(), c10::AnyType::get());
  any.insert(std::string("a"), torch::ones({2}));
  any.insert(std::string("b"), torch::ones({3}));
  const c10::TypePtr type = Parse("Dict(str, Tensor)");
  absl::StatusOr<c10::IValue> converted = ConvertToType(c10::IValue(any), type, "feats");
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_TRUE(converted->type()->isSubtypeOf(*type)) << converted->type()->annotation_str();
  EXPECT_EQ(converted->toGenericDict().size(), 2u);
  EXPECT_TRUE(converted->toGenericDict().at(std::string("b")).toTensor().equal(torch::ones({3})));
}

TEST(ConvertToTypeTest, OptionalsTuplesAndIntsAsFloats) {
  EXPECT_TRUE(ConvertToType(c10::IValue(), Parse("float?"), "scale")->isNone());
  absl::StatusOr<c10::IValue> scale = ConvertToType(c10::IValue(int64_t{2}), Parse("float?"), "scale");
  ASSERT_TRUE(scale.ok()) << scale.status();
  ASSERT_TRUE(scale->isDouble());
  EXPECT_EQ(scale->toDouble(), 2.0);
  c10::impl::GenericList pair(c10::AnyType::get());
  pair.push_back(torch::ones({1}));
  pair.push_back(int64_t{3});
  absl::StatusOr<c10::IValue> tuple = ConvertToType(c10::IValue(pair), Parse("(Tensor, int)"), "pair");
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  ASSERT_TRUE(tuple->isTuple());
  EXPECT_EQ(tuple->toTupleRef().elements()[1].toInt(), 3);
}

TEST(ConvertToTypeTest, WhatDoesNotFitIsNamedByArgumentAndElement) {
  c10::impl::GenericDict any(c10::AnyType::get(), c10::AnyType::get());
  any.insert(std::string("a"), torch::ones({2}));
  any.insert(std::string("b"), int64_t{7});
  absl::StatusOr<c10::IValue> bad = ConvertToType(c10::IValue(any), Parse("Dict(str, Tensor)"), "feats");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "feats['b']: must be Tensor but got")) << bad.status();

  c10::impl::GenericList list(c10::AnyType::get());
  list.push_back(torch::ones({1}));
  list.push_back(std::string("text"));
  absl::StatusOr<c10::IValue> bad_list = ConvertToType(c10::IValue(list), Parse("Tensor[]"), "images");
  ASSERT_FALSE(bad_list.ok());
  EXPECT_TRUE(absl::StrContains(bad_list.status().message(), "images[1]: must be Tensor")) << bad_list.status();

  absl::StatusOr<c10::IValue> short_tuple =
      ConvertToType(c10::ivalue::Tuple::create({torch::ones({1})}), Parse("(Tensor, int)"), "pair");
  ASSERT_FALSE(short_tuple.ok());
  EXPECT_TRUE(absl::StrContains(short_tuple.status().message(), "pair: must be")) << short_tuple.status();

  absl::StatusOr<c10::IValue> not_a_dict = ConvertToType(torch::ones({1}), Parse("Dict(str, Tensor)"), "feats");
  EXPECT_FALSE(not_a_dict.ok());
}

}  // namespace
}  // namespace graphprof

namespace graphprof {
namespace {

// A NaN against a number is an infinite error, named as such (it read as
// "max abs error 0"); NaNs at the same places are equal.
TEST(CompareIValuesTest, ANanAgainstANumberIsAnInfiniteError) {
  const at::Tensor expected = torch::tensor({1.0f, 2.0f});
  const at::Tensor actual = torch::tensor({1.0f, std::nanf("")});
  const IValueComparison c = CompareIValues(expected, actual, 1e-4, 1e-5);
  EXPECT_FALSE(c.identical);
  EXPECT_FALSE(c.within_tolerance);
  EXPECT_TRUE(std::isinf(c.max_abs_error)) << c.max_abs_error;
  EXPECT_NE(c.detail.find("NaN in one where the other has a number"), std::string::npos) << c.detail;
  const at::Tensor both = torch::tensor({std::nanf(""), 2.0f});
  EXPECT_TRUE(CompareIValues(both, both.clone(), 0, 0).identical);
}

}  // namespace
}  // namespace graphprof
