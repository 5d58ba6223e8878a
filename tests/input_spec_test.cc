#include "ir/input_spec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/strings/match.h"

namespace graphprof {
namespace {

TEST(InputSpecTest, ParsesShapesDtypesRangesAndScalars) {
  absl::StatusOr<std::vector<InputSpec>> specs =
      ParseInputSpecs("1x3x224x224:float32, 2x5000:int64[0:1000],8x32,scalar:f64,=3,=0.5,=true");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 7u);
  EXPECT_EQ((*specs)[0].shape, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ((*specs)[1].dtype, c10::ScalarType::Long);
  EXPECT_TRUE((*specs)[1].has_range);
  EXPECT_EQ((*specs)[1].high, 1000);
  EXPECT_EQ((*specs)[2].dtype, c10::ScalarType::Float);
  EXPECT_TRUE((*specs)[3].shape.empty());
  EXPECT_EQ((*specs)[4].kind, InputSpec::Kind::kInt);
  EXPECT_EQ((*specs)[5].kind, InputSpec::Kind::kFloat);
  EXPECT_EQ((*specs)[6].kind, InputSpec::Kind::kBool);
  EXPECT_EQ(FormatInputSpecs(*specs),
            "1x3x224x224:float32,2x5000:int64[0:1000],8x32:float32,scalar:float64,=3,=0.5,=true");
}

TEST(InputSpecTest, RejectsMalformedSpecsWithReasons) {
  struct Case {
    const char* text;
    const char* reason;
  } cases[] = {
      {"1x3xfoo:float32", "shape must be sizes joined by 'x'"},
      {"4:float33", "unknown dtype 'float33'"},
      {"4:int64[5:1]", "low < high"},
      {"4:float32[0:3]", "needs an integer dtype"},
      {"4:int64[0:3", "malformed range"},
      {"1,,2", "empty input spec"},
      {"=abc", "not an int, float or bool"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<InputSpec>> specs = ParseInputSpecs(c.text);
    ASSERT_FALSE(specs.ok()) << c.text;
    EXPECT_TRUE(absl::StrContains(specs.status().message(), c.reason)) << specs.status();
  }
}

// Found by input_spec_fuzzer: FormatInputSpecs wrote float scalars with six
// digits and no decimal point, so "=-0E33" formatted as "=-0", which parses
// as an int, and "=2.0" as the int "=2"; and int scalars went through a
// double, so big ones changed (2^53 + 1) or overflowed the cast back (UB).
TEST(InputSpecTest, ScalarsFormatBackToTheSameScalars) {
  absl::StatusOr<std::vector<InputSpec>> specs =
      ParseInputSpecs("=2.0,=-0E33,=0.1234567891,=1e300,=9007199254740993,=9223372036854775807,=-9223372036854775808");
  ASSERT_TRUE(specs.ok()) << specs.status();
  const std::string text = FormatInputSpecs(*specs);
  EXPECT_EQ(text, "=2.0,=-0.0,=0.1234567891,=1e+300,=9007199254740993,=9223372036854775807,=-9223372036854775808");
  absl::StatusOr<std::vector<InputSpec>> again = ParseInputSpecs(text);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), specs->size());
  std::vector<c10::IValue> inputs = *MakeRandomInputs(*specs, 0);
  std::vector<c10::IValue> inputs_again = *MakeRandomInputs(*again, 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ((*again)[i].kind, (*specs)[i].kind) << i;
    EXPECT_EQ(inputs_again[i].tagKind(), inputs[i].tagKind()) << i;
    if (inputs[i].isDouble()) {
      EXPECT_EQ(inputs_again[i].toDouble(), inputs[i].toDouble()) << i;
      EXPECT_EQ(std::signbit(inputs_again[i].toDouble()), std::signbit(inputs[i].toDouble())) << i;
    }
  }
  EXPECT_TRUE(inputs[0].isDouble());
  EXPECT_TRUE(std::signbit(inputs[1].toDouble()));
  EXPECT_EQ(inputs[4].toInt(), int64_t{9007199254740993});
  EXPECT_EQ(inputs[5].toInt(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(inputs[6].toInt(), std::numeric_limits<int64_t>::min());
}

TEST(InputSpecTest, RandomInputsAreSeededAndRespectRanges) {
  absl::StatusOr<std::vector<InputSpec>> specs = ParseInputSpecs("16x8:float32,2x500:int64[3:7],10:bool");
  ASSERT_TRUE(specs.ok());
  std::vector<c10::IValue> a = *MakeRandomInputs(*specs, 42);
  std::vector<c10::IValue> b = *MakeRandomInputs(*specs, 42);
  std::vector<c10::IValue> c = *MakeRandomInputs(*specs, 43);
  EXPECT_TRUE(a[0].toTensor().equal(b[0].toTensor()));
  EXPECT_FALSE(a[0].toTensor().equal(c[0].toTensor()));
  const at::Tensor& ints = a[1].toTensor();
  EXPECT_EQ(ints.scalar_type(), at::kLong);
  EXPECT_GE(ints.min().item<int64_t>(), 3);
  EXPECT_LT(ints.max().item<int64_t>(), 7);
  EXPECT_EQ(a[2].toTensor().scalar_type(), at::kBool);
}

TEST(InputSpecTest, ImpossibleInputsAreRefusedBeforeAllocating) {
  absl::StatusOr<std::vector<InputSpec>> huge = ParseInputSpecs("100000x100000x100000");
  ASSERT_TRUE(huge.ok());
  absl::StatusOr<std::vector<c10::IValue>> made = MakeRandomInputs(*huge, 0);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(made.status().message(), "input 1 (100000x100000x100000:float32) would need 3725290.3 GiB"))
      << made.status();
  absl::StatusOr<std::vector<InputSpec>> overflow = ParseInputSpecs("9223372036854775807x4");
  ASSERT_TRUE(overflow.ok());
  EXPECT_TRUE(absl::StrContains(MakeRandomInputs(*overflow, 0).status().message(), "more than 2^63 bytes"));
  absl::StatusOr<std::vector<InputSpec>> small = ParseInputSpecs("1024x1024");
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(MakeRandomInputs(*small, 0, /*max_bytes=*/1 << 20).ok()) << "4 MiB over a 1 MiB limit";
  EXPECT_TRUE(MakeRandomInputs(*small, 0, /*max_bytes=*/4 << 20).ok());
  for (const char* bad : {"1x3x224x224:int8[0:1000]", "4:uint8[0:1000]", "4:uint8[-1:3]", "4:int16[0:40000]"}) {
    absl::StatusOr<std::vector<InputSpec>> spec = ParseInputSpecs(bad);
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_TRUE(absl::StrContains(spec.status().message(), "do not fit")) << spec.status();
  }
  EXPECT_TRUE(ParseInputSpecs("4:uint8[0:256]").ok()) << "255 is the largest value drawn";
}

}  // namespace
}  // namespace graphprof
