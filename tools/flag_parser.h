// Command-line parsing for profile_graph over the Abseil flags it defines,
// with every problem reported as one sentence (Abseil's own parser prints
// multi-line errors and exits 1; graphprof promises exit 2 and one line).
//
//   --name=value  --name value  --bool_flag  --nobool_flag  --  (ends flags)
//   --help / -h / --helpfull  (help requested; not an error)
#ifndef GRAPHPROF_TOOLS_FLAG_PARSER_H_
#define GRAPHPROF_TOOLS_FLAG_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof::cli {

struct CommandLine {
  std::vector<std::string> positional;  // arguments that are not flags (argv[0] excluded)
  bool help = false;
  // Flags given with an empty value (--ab=): for flags where empty is not
  // the same as absent.
  std::vector<std::string> empty_values;
  // Every flag given (by name, negated bools too).
  std::vector<std::string> given;
};

// Sets the flags named in argv[1..]; fails on an unknown flag or a value
// the flag's type does not accept.
absl::StatusOr<CommandLine> ParseFlags(int argc, char** argv);

// "--name (default: X)  help" for every flag defined in a file whose path
// ends with `defined_in`, sorted by name.
std::string DescribeFlags(absl::string_view defined_in);

}  // namespace graphprof::cli

#endif  // GRAPHPROF_TOOLS_FLAG_PARSER_H_
