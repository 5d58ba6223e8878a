// Operators that act outside the process (side_effects.h).
#include "interpreter/side_effects.h"

#include "absl/strings/match.h"

namespace graphprof {
namespace {

struct Entry {
  absl::string_view name;  // "aten::save", or "c10d::" for a whole namespace
  absl::string_view what;
};

constexpr Entry kEntries[] = {
    {"aten::save", "writes a file (torch.save)"},
    {"aten::from_file", "reads a file (and maps it for writing with shared=True)"},
    {"prim::rpc_sync", "calls another process (torch.distributed.rpc)"},
    {"prim::rpc_async", "calls another process (torch.distributed.rpc)"},
    {"prim::rpc_remote", "calls another process (torch.distributed.rpc)"},
    {"aten::dist_backward", "runs distributed autograd (torch.distributed.autograd)"},
    {"aten::get_gradients", "reads distributed autograd's context (torch.distributed.autograd)"},
    {"c10d::", "communicates with other processes (a torch.distributed collective)"},
    {"_c10d_functional::", "communicates with other processes (a torch.distributed collective)"},
    {"_c10d_functional_autograd::", "communicates with other processes (a torch.distributed collective)"},
    {"_dtensor::", "communicates with other processes (a torch.distributed collective)"},
};

}  // namespace

absl::string_view SideEffectOf(absl::string_view qualified_name) {
  for (const Entry& e : kEntries) {
    const bool whole_namespace = absl::EndsWith(e.name, "::");
    if (whole_namespace ? absl::StartsWith(qualified_name, e.name) : qualified_name == e.name) return e.what;
  }
  return {};
}

}  // namespace graphprof
