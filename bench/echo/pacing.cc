#include "bench/echo/pacing.h"

#include <cmath>

namespace starling::bench {

PacingSchedule::PacingSchedule(std::uint64_t start_ns, double rate_bps, std::uint32_t payload_bytes)
    : start_ns_(start_ns), interval_ns_(payload_bytes * 8.0 * 1e9 / rate_bps) {}

std::uint64_t PacingSchedule::due_ns(std::uint64_t index) const {
  return start_ns_ + static_cast<std::uint64_t>(std::llround(index * interval_ns_));
}

std::uint64_t PacingSchedule::due_count(std::uint64_t now_ns) const {
  if (now_ns < start_ns_) return 0;
  // Estimate from the division, then correct for rounding in due_ns().
  auto n = static_cast<std::uint64_t>((now_ns - start_ns_) / interval_ns_) + 1;
  while (n > 0 && due_ns(n - 1) > now_ns) --n;
  while (due_ns(n) <= now_ns) ++n;
  return n;
}

}  // namespace starling::bench
