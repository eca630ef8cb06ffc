#ifndef STARLING_NET_TCP_TESTS_ALLOC_SWEEP_H_
#define STARLING_NET_TCP_TESTS_ALLOC_SWEEP_H_

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "kernel/lib/result.h"

// Test support for allocation-failure sweeps (failure_injection.h): a
// workload run once with allocation N of one allocator failed, then again
// with nothing failed, for every N the workload makes. What each run must
// show and how a sweep is summed up are the same whichever stack the
// workload drives (//net/tcp/tests:alloc_failure_test over the loopback
// netif, //net/netif:netif_alloc_failure_test over FakeNic), so both
// record a SweepRun per N and hand the list to check_sweep().
namespace starling::net::testing {

struct SweepRun {
  std::uint64_t n = 0;               // the allocation made to fail (1-based)
  bool injected = false;             // it was reached and failed
  bool faulted_ok = false;           // the workload succeeded anyway
  Error faulted = Error::kNoMemory;  // ... or how it failed
  bool recovered = false;            // the next workload, nothing failed, succeeded
  bool settled = false;              // every watched count back at its baseline
  std::string leak;                  // which counts were not, when not settled
};

// Every run: no corrupted result (kMalformed), the next workload whole, the
// counts back at baseline; nearly every N reached an allocation (timers and
// the pump allocate at times that vary a little between runs). Then one
// line on stdout: how the failures ended.
inline void check_sweep(const char* site, std::uint64_t calls, std::span<const SweepRun> runs) {
  std::size_t injected = 0;
  std::size_t absorbed = 0;
  std::array<std::size_t, 16> errors{};
  for (const SweepRun& run : runs) {
    injected += run.injected;
    if (run.faulted_ok) {
      ++absorbed;
    } else {
      ++errors[static_cast<std::size_t>(run.faulted) % errors.size()];
    }
    EXPECT_FALSE(!run.faulted_ok && run.faulted == Error::kMalformed)
        << site << " call " << run.n << " failed: an echo came back corrupted";
    EXPECT_TRUE(run.recovered) << site << " call " << run.n
                               << " failed: the next workload did not succeed";
    EXPECT_TRUE(run.settled) << site << " call " << run.n
                             << " failed: pools not back at baseline:" << run.leak;
  }
  EXPECT_GE(injected * 10, runs.size() * 9)
      << injected << " of " << runs.size() << " runs failed an allocation";
  std::printf("%s: %llu calls; %zu runs, %zu failed an allocation; %zu absorbed", site,
              static_cast<unsigned long long>(calls), runs.size(), injected, absorbed);
  for (std::size_t e = 0; e < errors.size(); ++e) {
    if (errors[e] != 0)
      std::printf(", %zu ended in %s", errors[e], error_name(static_cast<Error>(e)));
  }
  std::printf("\n");
}

}  // namespace starling::net::testing

#endif  // STARLING_NET_TCP_TESTS_ALLOC_SWEEP_H_
