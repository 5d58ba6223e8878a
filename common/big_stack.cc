#include "common/big_stack.h"

#include <pthread.h>

namespace graphprof {
namespace {

struct Work {
  const std::function<int()>* fn;
  int result = 0;
};

void* Run(void* arg) {
  Work* work = static_cast<Work*>(arg);
  work->result = (*work->fn)();
  return nullptr;
}

}  // namespace

int RunWithStack(size_t stack_bytes, const std::function<int()>& fn) {
  Work work{&fn};
  pthread_attr_t attr;
  pthread_t thread;
  const bool made = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, stack_bytes) == 0 &&
                    pthread_create(&thread, &attr, Run, &work) == 0;
  pthread_attr_destroy(&attr);
  if (!made) return fn();
  pthread_join(thread, nullptr);
  return work.result;
}

}  // namespace graphprof
