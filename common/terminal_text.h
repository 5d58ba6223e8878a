// Text from files (a report's model name, a node's label, a note) printed to
// a terminal must not act on it: a newline would forge a line of graphprof's
// own ("profile_graph: everything is fine"), an ESC or OSC sequence would
// retitle or recolour the terminal. EscapeForTerminal writes every control
// character as a visible escape (\n, \r, \t, \x1b, \u0085 for the C1
// controls of UTF-8) and leaves all other bytes, UTF-8 included, as they are.
#ifndef GRAPHPROF_COMMON_TERMINAL_TEXT_H_
#define GRAPHPROF_COMMON_TERMINAL_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace graphprof {

std::string EscapeForTerminal(absl::string_view text);

// Whether `text` holds anything EscapeForTerminal would change.
bool HasControlCharacters(absl::string_view text);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_TERMINAL_TEXT_H_
