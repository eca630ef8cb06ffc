#ifndef STARLING_BENCH_ASYNC_WORKLOADS_H_
#define STARLING_BENCH_ASYNC_WORKLOADS_H_

// The runtime operations the benchmarks count instructions of, shared by the
// host benchmark (callgrind) and the QEMU one (instret):
//   kYield  n suspend/resume round trips through the ready queue (two tasks
//           taking turns with co_await yield())
//   kCall   n calls of a child task that returns at once (frame allocation,
//           two symmetric transfers, result move, frame free)
//   kSpawn  n detached tasks spawned, run and freed
// Run once with n and once with 0; the difference divided by n is the cost
// of one operation, start-up excluded.
namespace starling::bench {

enum class Workload { kYield, kCall, kSpawn };

// Runs `workload` n times on a fresh executor. 0 on success.
int run_workload(Workload workload, long n);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ASYNC_WORKLOADS_H_
