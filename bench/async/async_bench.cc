// Workloads for counting instructions with callgrind (see callgrind.sh):
//   async_bench <mode> <n>
//   yield  n suspend/resume round trips through the ready queue (two tasks
//          taking turns with co_await yield())
//   call   n calls of a child task that returns at once (frame allocation,
//          two symmetric transfers, result move, frame free)
//   spawn  n detached tasks spawned, run and freed
// Run once with n and once with 0; the difference divided by n is the cost
// of one operation, start-up excluded.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernel/async/executor.h"
#include "kernel/async/task.h"
#include "kernel/async/yield.h"

namespace starling::async {
namespace {

long g_sink = 0;

Task<void> take_turns(long turns) {
  for (long i = 0; i < turns; ++i) co_await yield();
  co_return {};
}

Task<int> leaf(int v) { co_return v; }

Task<void> caller(long calls) {
  for (long i = 0; i < calls; ++i) {
    Result<int> r = co_await leaf(static_cast<int>(i));
    g_sink += *r;
  }
  co_return {};
}

Task<void> trivial() {
  ++g_sink;
  co_return {};
}

int run(const char* mode, long n) {
  Executor executor;
  if (std::strcmp(mode, "yield") == 0) {
    // Two tasks, n/2 yields each: n suspensions and n resumptions in all.
    if (!executor.spawn(take_turns(n / 2)).ok()) return 1;
    if (!executor.spawn(take_turns(n - n / 2)).ok()) return 1;
    executor.run();
  } else if (std::strcmp(mode, "call") == 0) {
    if (!executor.block_on(caller(n)).ok()) return 1;
  } else if (std::strcmp(mode, "spawn") == 0) {
    for (long i = 0; i < n; ++i) {
      if (!executor.spawn(trivial()).ok()) return 1;
      if ((i & 1023) == 1023) executor.run();  // keep the arena small
    }
    executor.run();
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace starling::async

int main(int argc, char** argv) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  if (argc > 1 && std::strcmp(argv[1], "--check") == 0) {
    std::puts("sanitizers: on");
    return 0;
  }
#endif
#endif
  if (argc > 1 && std::strcmp(argv[1], "--check") == 0) {
    std::puts("sanitizers: off");
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s yield|call|spawn <n>\n", argv[0]);
    return 2;
  }
  return starling::async::run(argv[1], std::atol(argv[2]));
}
