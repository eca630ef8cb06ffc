#include "bench/echo/rtt_stats.h"

#include <algorithm>
#include <cmath>

namespace starling::bench {

RttStats compute_rtt_stats(std::span<std::uint64_t> rtt_ns) {
  RttStats s;
  if (rtt_ns.empty()) return s;
  std::sort(rtt_ns.begin(), rtt_ns.end());
  const std::size_t n = rtt_ns.size();
  s.count = n;
  s.min_us = rtt_ns.front() / 1e3;
  s.max_us = rtt_ns.back() / 1e3;
  s.median_us = (n % 2 == 1 ? rtt_ns[n / 2] : (rtt_ns[n / 2 - 1] + rtt_ns[n / 2]) / 2.0) / 1e3;
  // Two passes: the mean first, then squared deviations (no cancellation).
  double sum = 0;
  for (std::uint64_t v : rtt_ns) sum += static_cast<double>(v);
  const double mean = sum / static_cast<double>(n);
  double squares = 0;
  for (std::uint64_t v : rtt_ns) {
    const double d = static_cast<double>(v) - mean;
    squares += d * d;
  }
  s.avg_us = mean / 1e3;
  s.stdev_us = std::sqrt(squares / static_cast<double>(n)) / 1e3;
  return s;
}

}  // namespace starling::bench
