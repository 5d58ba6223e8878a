// LibTorch's warnings (TORCH_WARN: "Overriding a previously registered
// kernel ...") and a model's own (aten::warn, warnings.warn in TorchScript)
// reach c10's warning handler; its default prints them raw, over several
// lines, with whatever control characters they hold. A program that prints
// its own lines installs this one instead: every warning becomes one line
// "<prefix>: warning: <text> (<where>)", its lines folded and its control
// characters escaped as the report's notes are (terminal_text.h).
#ifndef GRAPHPROF_COMMON_WARNING_LINES_H_
#define GRAPHPROF_COMMON_WARNING_LINES_H_

#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"

namespace graphprof {

// `text` as one line: surrounding white space dropped, its lines joined by
// " ", then escaped for a terminal.
std::string FoldedLine(absl::string_view text);

// From now on, for the whole process, c10 warnings are printed to `stream`
// as FoldedLine()s prefixed with `prefix` ("profile_graph"), each distinct
// text once (as Python's default filter shows a warning once per place).
// Call once, early.
void PrintWarningsAsLines(std::FILE* stream, std::string prefix);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_WARNING_LINES_H_
