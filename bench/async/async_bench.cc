// Host benchmark driver for callgrind (see callgrind.sh):
//   async_bench yield|call|spawn <n>
// The workloads are in workloads.h.

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench/async/workloads.h"

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
  using starling::bench::Workload;
  Workload workload;
  if (std::strcmp(argv[1], "yield") == 0) {
    workload = Workload::kYield;
  } else if (std::strcmp(argv[1], "call") == 0) {
    workload = Workload::kCall;
  } else if (std::strcmp(argv[1], "spawn") == 0) {
    workload = Workload::kSpawn;
  } else {
    std::fprintf(stderr, "unknown mode %s: yield, call or spawn\n", argv[1]);
    return 2;
  }
  return starling::bench::run_workload(workload, std::atol(argv[2]));
}
