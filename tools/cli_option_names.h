// profile_graph's names for the options the report layer's messages point
// to (profilers/report/option_names.h): its flags.
#ifndef GRAPHPROF_TOOLS_CLI_OPTION_NAMES_H_
#define GRAPHPROF_TOOLS_CLI_OPTION_NAMES_H_

#include "profilers/report/option_names.h"

namespace graphprof {

inline OptionNames CliOptionNames() {
  OptionNames names;
  names.backward = "--backward";
  names.method = "--method";
  names.device = "--device";
  names.workers = "--workers";
  names.allow_graph_change = "--allow_graph_change";
  names.allow_input_change = "--allow_input_change";
  names.diff_all = "--diff_all";
  return names;
}

}  // namespace graphprof

#endif  // GRAPHPROF_TOOLS_CLI_OPTION_NAMES_H_
