// Module paths as named_modules() names them ("layer1.0.conv1"; "" for the
// root module): which module a path lies in. Used where nodes are chosen or
// grouped by module (report views, diff matching, the delay pass, compiled
// kernels' modules).
#ifndef GRAPHPROF_COMMON_MODULE_PATH_H_
#define GRAPHPROF_COMMON_MODULE_PATH_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// True when `module` is `prefix` or inside it ("layer1.0" is inside
// "layer1", "layer10" is not); every module is inside "" (the root).
inline bool InModule(absl::string_view module, absl::string_view prefix) {
  if (prefix.empty()) return true;
  if (!absl::StartsWith(module, prefix)) return false;
  return module.size() == prefix.size() || module[prefix.size()] == '.';
}

// How deep `module` lies: 0 for the root (""), 1 for "layer1", 3 for
// "layer1.0.conv1".
inline int ModuleDepth(absl::string_view module) {
  return module.empty() ? 0 : 1 + static_cast<int>(std::count(module.begin(), module.end(), '.'));
}

// The deepest module holding every one of `modules` (none: the root ""):
// "layer1.0" for "layer1.0.conv1" and "layer1.0.bn1"; "" for "layer1" and
// "fc". Where a compiled kernel computing nodes of several modules is charged.
inline std::string DeepestCommonModule(const std::vector<std::string>& modules) {
  if (modules.empty()) return "";
  std::string common = modules[0];
  for (const std::string& module : modules) {
    while (!InModule(module, common)) {
      const size_t dot = common.rfind('.');
      common = dot == std::string::npos ? "" : common.substr(0, dot);
    }
  }
  return common;
}

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_MODULE_PATH_H_
