// How a front end names the options that the report layer's (and the model
// sources', sources/model_source.h) messages point to. The report layer says what is wrong and what would fix it in plain
// words ("profile both sides in several processes"); where the front end
// gives the option's name, the message names it too, so profile_graph's
// users read its flags (tools/cli_option_names.h) and Python's users the
// keyword arguments (python/ext_reports.cc). The report layer holds no front
// end's spelling: every name is empty unless given.
#ifndef GRAPHPROF_PROFILERS_REPORT_OPTION_NAMES_H_
#define GRAPHPROF_PROFILERS_REPORT_OPTION_NAMES_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace graphprof {

struct OptionNames {
  std::string backward;            // profile training steps: "--backward", "backward=True"
  std::string method;              // the method to profile: "--method", "method="
  std::string device;              // the device to run on: "--device"
  std::string workers;             // a side profiled in several processes: "--workers"
  std::string allow_graph_change;  // check: accept another graph or other passes
  std::string allow_input_change;  // check: accept other inputs
  std::string diff_all;            // a diff that lists nodes that never ran
};

// " (NAME)", or "" without a name.
inline std::string NamedAfter(const std::string& name) { return name.empty() ? "" : absl::StrCat(" (", name, ")"); }

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_OPTION_NAMES_H_
