#ifndef STARLING_BENCH_ECHO_RTT_STATS_H_
#define STARLING_BENCH_ECHO_RTT_STATS_H_

#include <cstdint>
#include <span>

// Round-trip time statistics of one run, in microseconds, as the CSV
// reports them: min, mean, max, population standard deviation, median
// (the mean of the two middle values for an even count).
namespace starling::bench {

struct RttStats {
  double min_us = 0;
  double avg_us = 0;
  double max_us = 0;
  double stdev_us = 0;
  double median_us = 0;
  std::uint64_t count = 0;
};

// From RTTs in nanoseconds, in any order (the span is sorted in place).
// All zero for an empty span.
RttStats compute_rtt_stats(std::span<std::uint64_t> rtt_ns);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_RTT_STATS_H_
