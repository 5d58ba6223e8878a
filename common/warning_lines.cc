// Warnings as one line each (warning_lines.h).
#include "common/warning_lines.h"

#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/terminal_text.h"
#include "common/torch_compat.h"

namespace graphprof {
namespace {

class LineHandler : public torch_compat::WarningHandlerBase {
 public:
  LineHandler(std::FILE* stream, std::string prefix) : stream_(stream), prefix_(std::move(prefix)) {}

 protected:
  void Print(absl::string_view text, absl::string_view file, int line) override {
    // Each text once, as Python's default warning filter shows it: the
    // model's warnings.warn fires in graphprof's run and again in the
    // native reference run (from another source location).
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!printed_.insert(std::string(text)).second) return;
    }
    std::string where;
    if (!file.empty()) where = line > 0 ? absl::StrCat(" (", file, ":", line, ")") : absl::StrCat(" (", file, ")");
    const std::string out = absl::StrCat(prefix_, ": warning: ", FoldedLine(text), EscapeForTerminal(where), "\n");
    std::fputs(out.c_str(), stream_);
    std::fflush(stream_);
  }

 private:
  std::FILE* stream_;
  std::string prefix_;
  std::mutex mutex_;
  std::set<std::string> printed_;
};

}  // namespace

std::string FoldedLine(absl::string_view text) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(text, absl::ByAnyChar("\r\n"))) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.push_back(line);
  }
  return EscapeForTerminal(absl::StrJoin(lines, " "));
}

void PrintWarningsAsLines(std::FILE* stream, std::string prefix) {
  static LineHandler* handler = new LineHandler(stream, std::move(prefix));
  torch_compat::SetWarningHandler(handler);
}

}  // namespace graphprof
