#include "common/path_pattern.h"

#include <sys/stat.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

constexpr int kMaxTries = 100000;
constexpr char kKnown[] = "{model}, {date}, {pid}, {n}";

bool Taken(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string Date(std::time_t t) {
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%d-%H%M%S", &utc);
  return text;
}

// Expands everything but {n}, which is left as is; `has_n` tells whether it occurs.
absl::StatusOr<std::string> Substitute(absl::string_view pattern, const PathPatternValues& values, bool* has_n) {
  std::string out;
  *has_n = false;
  size_t i = 0;
  while (i < pattern.size()) {
    const size_t open = pattern.find('{', i);
    if (open == absl::string_view::npos) {
      absl::StrAppend(&out, pattern.substr(i));
      break;
    }
    absl::StrAppend(&out, pattern.substr(i, open - i));
    const size_t close = pattern.find('}', open);
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("'{' without '}' in '", pattern, "' (placeholders: ", kKnown, ")"));
    }
    const absl::string_view name = pattern.substr(open + 1, close - open - 1);
    if (name == "model") {
      out += FileSafeName(values.model);
    } else if (name == "date") {
      out += Date(values.start);
    } else if (name == "pid") {
      absl::StrAppend(&out, values.pid);
    } else if (name == "n") {
      out += "{n}";
      *has_n = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown placeholder {", name, "} in '", pattern, "' (use ", kKnown, ")"));
    }
    i = close + 1;
  }
  return out;
}

std::string ReplaceN(const std::string& s, int n) {
  std::string out;
  size_t i = 0;
  for (size_t at = s.find("{n}"); at != std::string::npos; at = s.find("{n}", i)) {
    absl::StrAppend(&out, s.substr(i, at - i), n);
    i = at + 3;
  }
  out += s.substr(i);
  return out;
}

}  // namespace

bool IsPathPattern(absl::string_view path) { return path.find('{') != absl::string_view::npos; }

absl::Status CheckPathPattern(absl::string_view pattern) {
  bool has_n = false;
  return Substitute(pattern, PathPatternValues{}, &has_n).status();
}

absl::StatusOr<std::string> ExpandPathPattern(absl::string_view pattern, const PathPatternValues& values) {
  bool has_n = false;
  absl::StatusOr<std::string> expanded = Substitute(pattern, values, &has_n);
  if (!expanded.ok() || !has_n) return expanded.ok() ? FirstFreePath(*expanded) : expanded;
  for (int n = 0; n < kMaxTries; ++n) {
    std::string path = ReplaceN(*expanded, n);
    if (!Taken(path)) return path;
  }
  return absl::ResourceExhaustedError(absl::StrCat("no free name for '", pattern, "' with {n} below ", kMaxTries));
}

std::string NumberedPath(absl::string_view path, int n) {
  const size_t slash = path.rfind('/');
  const size_t base = slash == absl::string_view::npos ? 0 : slash + 1;
  size_t dot = path.rfind('.');
  if (dot == absl::string_view::npos || dot <= base) dot = path.size();  // no extension (or a leading dot)
  return absl::StrCat(path.substr(0, dot), "-", n, path.substr(dot));
}

absl::StatusOr<std::string> FirstFreePath(const std::string& path) {
  if (!Taken(path)) return path;
  for (int n = 1; n < kMaxTries; ++n) {
    std::string numbered = NumberedPath(path, n);
    if (!Taken(numbered)) return numbered;
  }
  return absl::ResourceExhaustedError(absl::StrCat("no free name for ", path, " up to -", kMaxTries - 1));
}

std::string FileSafeName(absl::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != absl::string_view::npos) name = name.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != absl::string_view::npos && dot > 0) name = name.substr(0, dot);
  std::string out;
  for (char c : name) {
    const bool safe = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    out += safe ? c : '-';
  }
  return out.empty() ? "model" : out;
}

}  // namespace graphprof
