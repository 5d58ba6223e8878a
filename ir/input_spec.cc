#include "ir/input_spec.h"

#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdint>

#include <ATen/CPUGeneratorImpl.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_util.h"
#include "ir/ivalue_util.h"

namespace graphprof {
namespace {

struct DtypeName {
  const char* name;
  c10::ScalarType type;
};

constexpr DtypeName kDtypes[] = {
    {"float32", c10::ScalarType::Float},   {"float", c10::ScalarType::Float},
    {"f32", c10::ScalarType::Float},       {"float64", c10::ScalarType::Double},
    {"double", c10::ScalarType::Double},   {"f64", c10::ScalarType::Double},
    {"float16", c10::ScalarType::Half},    {"half", c10::ScalarType::Half},
    {"f16", c10::ScalarType::Half},        {"bfloat16", c10::ScalarType::BFloat16},
    {"bf16", c10::ScalarType::BFloat16},   {"int64", c10::ScalarType::Long},
    {"long", c10::ScalarType::Long},       {"i64", c10::ScalarType::Long},
    {"int32", c10::ScalarType::Int},       {"int", c10::ScalarType::Int},
    {"i32", c10::ScalarType::Int},         {"int16", c10::ScalarType::Short},
    {"i16", c10::ScalarType::Short},       {"int8", c10::ScalarType::Char},
    {"i8", c10::ScalarType::Char},         {"uint8", c10::ScalarType::Byte},
    {"u8", c10::ScalarType::Byte},         {"bool", c10::ScalarType::Bool},
};

bool IsIntegral(c10::ScalarType t) { return c10::isIntegralType(t, /*includeBool=*/false); }

absl::StatusOr<InputSpec> ParseScalar(absl::string_view item, absl::string_view value) {
  InputSpec spec;
  int64_t i;
  double d;
  if (value == "true" || value == "false") {
    spec.kind = InputSpec::Kind::kBool;
    spec.scalar = value == "true" ? 1 : 0;
  } else if (absl::SimpleAtoi(value, &i)) {
    spec.kind = InputSpec::Kind::kInt;
    spec.integer = i;
  } else if (absl::SimpleAtod(value, &d)) {
    spec.kind = InputSpec::Kind::kFloat;
    spec.scalar = d;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", item, "': '=", value, "' is not an int, float or bool"));
  }
  return spec;
}

absl::StatusOr<InputSpec> ParseOne(absl::string_view item) {
  item = absl::StripAsciiWhitespace(item);
  if (item.empty()) return absl::InvalidArgumentError("empty input spec");
  if (absl::ConsumePrefix(&item, "=")) return ParseScalar(item, item);
  InputSpec spec;
  absl::string_view shape_text = item;
  absl::string_view dtype_text = "float32";
  if (size_t colon = item.find(':'); colon != absl::string_view::npos) {
    shape_text = item.substr(0, colon);
    dtype_text = item.substr(colon + 1);
  }
  // Optional integer range suffix: int64[0:1000].
  if (size_t bracket = dtype_text.find('['); bracket != absl::string_view::npos) {
    absl::string_view range = dtype_text.substr(bracket);
    dtype_text = dtype_text.substr(0, bracket);
    if (!absl::ConsumePrefix(&range, "[") || !absl::ConsumeSuffix(&range, "]")) {
      return absl::InvalidArgumentError(absl::StrCat("input '", item, "': malformed range, use [low:high]"));
    }
    std::vector<absl::string_view> bounds = absl::StrSplit(range, ':');
    if (bounds.size() != 2 || !absl::SimpleAtoi(bounds[0], &spec.low) ||
        !absl::SimpleAtoi(bounds[1], &spec.high) || spec.low >= spec.high) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", item, "': range must be [low:high] with integers low < high"));
    }
    spec.has_range = true;
  }
  absl::StatusOr<c10::ScalarType> dtype = ParseDtype(dtype_text);
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("input '", item, "': ", dtype.status().message()));
  }
  spec.dtype = *dtype;
  if (spec.has_range && !IsIntegral(spec.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", item, "': a [low:high] range needs an integer dtype"));
  }
  if (spec.has_range && IsIntegral(spec.dtype) && spec.dtype != c10::ScalarType::Long) {
    // Values are drawn from [low, high): high - 1 must fit the dtype.
    int64_t min = 0, max = 0;
    switch (spec.dtype) {
      case c10::ScalarType::Byte: min = 0; max = 255; break;
      case c10::ScalarType::Char: min = -128; max = 127; break;
      case c10::ScalarType::Short: min = -32768; max = 32767; break;
      case c10::ScalarType::Int: min = INT32_MIN; max = INT32_MAX; break;
      default: min = INT64_MIN; max = INT64_MAX; break;
    }
    if (spec.low < min || spec.high - 1 > max) {
      return absl::InvalidArgumentError(absl::StrCat("input '", item, "': values in [", spec.low, ":", spec.high,
                                                     ") do not fit ", dtype_text.substr(0, dtype_text.find('[')),
                                                     " (", min, " to ", max, ")"));
    }
  }
  if (shape_text != "scalar") {
    for (absl::string_view dim : absl::StrSplit(shape_text, 'x')) {
      int64_t size;
      if (!absl::SimpleAtoi(dim, &size) || size < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", item, "': shape must be sizes joined by 'x', like 1x3x224x224"));
      }
      spec.shape.push_back(size);
    }
  }
  return spec;
}

// A float scalar as text that parses back to the same float and as a float:
// the shortest %g that round-trips, with ".0" when it would read as an int.
std::string FormatFloat(double value) {
  std::string text;
  for (int precision = 6; precision <= 17; ++precision) {
    text = absl::StrFormat("%.*g", precision, value);
    double back;
    if (std::isnan(value) || (absl::SimpleAtod(text, &back) && back == value)) break;
  }
  int64_t integer;
  if (absl::SimpleAtoi(text, &integer)) text += ".0";
  return text;
}

}  // namespace

absl::StatusOr<c10::ScalarType> ParseDtype(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const DtypeName& d : kDtypes) {
    if (lower == d.name) return d.type;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", name, "' (use float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool)"));
}

absl::StatusOr<std::vector<InputSpec>> ParseInputSpecs(absl::string_view text) {
  std::vector<InputSpec> specs;
  if (absl::StripAsciiWhitespace(text).empty()) return specs;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    absl::StatusOr<InputSpec> spec = ParseOne(item);
    if (!spec.ok()) return spec.status();
    specs.push_back(*std::move(spec));
  }
  return specs;
}

std::string FormatInputSpecs(const std::vector<InputSpec>& specs) {
  std::vector<std::string> items;
  for (const InputSpec& s : specs) {
    switch (s.kind) {
      case InputSpec::Kind::kInt: items.push_back(absl::StrCat("=", s.integer)); continue;
      case InputSpec::Kind::kFloat: items.push_back(absl::StrCat("=", FormatFloat(s.scalar))); continue;
      case InputSpec::Kind::kBool: items.push_back(s.scalar != 0 ? "=true" : "=false"); continue;
      case InputSpec::Kind::kTensor: break;
    }
    std::string shape = s.shape.empty() ? "scalar" : absl::StrJoin(s.shape, "x");
    std::string dtype = c10::toString(s.dtype);
    for (const DtypeName& d : kDtypes) {
      if (d.type == s.dtype) { dtype = d.name; break; }
    }
    std::string range = s.has_range ? absl::StrCat("[", s.low, ":", s.high, "]") : "";
    items.push_back(absl::StrCat(shape, ":", dtype, range));
  }
  return absl::StrJoin(items, ",");
}

absl::StatusOr<std::vector<c10::IValue>> MakeRandomInputs(const std::vector<InputSpec>& specs, uint64_t seed,
                                                          int64_t max_bytes) {
  // Sizes first: nothing is allocated for a spec that cannot fit.
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& s = specs[i];
    if (s.kind != InputSpec::Kind::kTensor) continue;
    const int64_t element = static_cast<int64_t>(c10::elementSize(s.dtype));
    int64_t bytes = element;
    bool overflow = false;
    for (int64_t dim : s.shape) overflow = overflow || __builtin_mul_overflow(bytes, dim, &bytes);
    if (overflow || bytes > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "input ", i + 1, " (", FormatInputSpecs({s}), ") would need ",
          overflow ? "more than 2^63 bytes" : absl::StrFormat("%.1f GiB", static_cast<double>(bytes) / (1 << 30)),
          "; the limit is ", absl::StrFormat("%.1f GiB", static_cast<double>(max_bytes) / (1 << 30)),
          " (this machine's memory)"));
    }
  }
  at::Generator generator = at::detail::createCPUGenerator(seed);
  std::vector<c10::IValue> inputs;
  for (const InputSpec& s : specs) {
    switch (s.kind) {
      case InputSpec::Kind::kInt: inputs.emplace_back(s.integer); continue;
      case InputSpec::Kind::kFloat: inputs.emplace_back(s.scalar); continue;
      case InputSpec::Kind::kBool: inputs.emplace_back(s.scalar != 0); continue;
      case InputSpec::Kind::kTensor: break;
    }
    at::Tensor t;
    try {
      if (s.dtype == c10::ScalarType::Bool) {
        t = at::randint(0, 2, s.shape, generator, at::kLong).to(at::kBool);
      } else if (IsIntegral(s.dtype)) {
        t = at::randint(s.low, s.high, s.shape, generator, at::TensorOptions().dtype(s.dtype));
      } else {
        t = at::randn(s.shape, generator, at::kFloat).to(s.dtype);
      }
    } catch (const std::exception& e) {
      return StatusFromException(absl::StatusCode::kInvalidArgument,
                                 absl::StrCat("making input ", inputs.size() + 1, " (", FormatInputSpecs({s}), ")"), e);
    }
    inputs.emplace_back(std::move(t));
  }
  return inputs;
}

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : int64_t{1} << 40;
}

}  // namespace graphprof
