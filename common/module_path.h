// Module paths as named_modules() names them ("layer1.0.conv1"; "" for the
// root module): which module a path lies in. Used where nodes are chosen or
// grouped by module (report views, diff matching, the delay pass).
#ifndef GRAPHPROF_COMMON_MODULE_PATH_H_
#define GRAPHPROF_COMMON_MODULE_PATH_H_

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

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_MODULE_PATH_H_
