#include "bench/async/workloads.h"

#include "kernel/async/executor.h"
#include "kernel/async/task.h"
#include "kernel/async/yield.h"

namespace starling::bench {
namespace {

using async::Executor;
using async::Task;
using async::yield;

long g_sink = 0;

Task<void> take_turns(long turns) {
  for (long i = 0; i < turns; ++i) co_await yield();
  co_return {};
}

Task<int> leaf(int v) {
  co_return v;
}

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

}  // namespace

int run_workload(Workload workload, long n) {
  Executor executor;
  if (workload == Workload::kYield) {
    // Two tasks, n/2 yields each: n suspensions and n resumptions in all.
    if (!executor.spawn(take_turns(n / 2)).ok()) return 1;
    if (!executor.spawn(take_turns(n - n / 2)).ok()) return 1;
    executor.run();
  } else if (workload == Workload::kCall) {
    if (!executor.block_on(caller(n)).ok()) return 1;
  } else if (workload == Workload::kSpawn) {
    for (long i = 0; i < n; ++i) {
      if (!executor.spawn(trivial()).ok()) return 1;
      if ((i & 1023) == 1023) executor.run();  // keep the arena small
    }
    executor.run();
  }
  return 0;
}

}  // namespace starling::bench
