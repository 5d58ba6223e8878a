// Running work on a thread with a large stack. LibTorch's IR parser and its
// native graph executor recurse per nesting level / per node: a 10,000-node
// chain or 5,000 nested ifs overflow the default 8 MB stack of the main
// thread. Only the pages actually used are committed.
#ifndef GRAPHPROF_COMMON_BIG_STACK_H_
#define GRAPHPROF_COMMON_BIG_STACK_H_

#include <cstddef>
#include <functional>

namespace graphprof {

// 1 GiB: room for the deepest graphs graphprof accepts (ir/loader.h).
constexpr size_t kBigStackBytes = size_t{1} << 30;

// Runs `fn` on a new thread with `stack_bytes` of stack, waits, and returns
// its result (runs it on the calling thread if no such thread can be made).
int RunWithStack(size_t stack_bytes, const std::function<int()>& fn);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_BIG_STACK_H_
