#ifndef STARLING_KERNEL_WALL_CLOCK_WALL_CLOCK_H_
#define STARLING_KERNEL_WALL_CLOCK_WALL_CLOCK_H_

#include <cstdint>
#include <optional>

#include "kernel/lib/result.h"

// The wall clock: UTC as the network last said (SNTP: net/sntp), kept as
// an offset from the monotonic clock (hal::now_ns). Nothing that waits
// reads it: deadlines, timers, lwIP's timeouts and the stall detector run
// on the monotonic clock, so a step forward or back moves only what shows
// a date (HTTP's Date header, the console, TLS's certificate dates). A
// board has no battery-backed clock Starling reads, so the clock starts
// unset, and readers say so (no Date header, certificate dates not
// checked) rather than take 1970 for now.
namespace starling::wall_clock {

// The earliest time the clock takes: 2026-01-01T00:00:00Z, before this
// code was written. A server answering earlier is wrong (an unsynchronised
// server's 1900 or 1970, or a lie) and is refused.
inline constexpr std::int64_t kFloorUnixSeconds = 1'767'225'600;
inline constexpr std::int64_t kNanosecondsPerSecond = 1'000'000'000;

struct Stats {
  std::uint64_t sets = 0;              // times the clock took a time (the first included)
  std::uint64_t steps_back = 0;        // ... of which moved it back
  std::uint64_t refused_floor = 0;     // times refused: before kFloorUnixSeconds
  std::uint64_t last_step_abs_ns = 0;  // how far the last set moved it, either way (0 the first)
  std::uint64_t last_set_ns = 0;       // hal::now_ns() when it last took a time (0: never)
};

// Sets the clock so that the monotonic instant `at_ns` (hal::now_ns()) is
// `unix_ns` nanoseconds after the epoch. The step (the new reading minus
// the old at `at_ns`; 0 for the first set), or kInvalidArgument, and the
// clock unchanged, for a time before kFloorUnixSeconds.
Result<std::int64_t> set(std::int64_t unix_ns, std::uint64_t at_ns) noexcept;

bool is_set() noexcept;

// Nanoseconds since the epoch at the monotonic instant `at_ns`, or none
// while the clock is unset.
std::optional<std::int64_t> unix_ns_at(std::uint64_t at_ns) noexcept;

// The same now (hal::now_ns()).
std::optional<std::int64_t> now_unix_ns() noexcept;
// Whole seconds since the epoch now, or none while unset.
std::optional<std::int64_t> now_unix_seconds() noexcept;

const Stats& stats() noexcept;

// Unset again, counters zeroed: for tests.
void reset_for_testing() noexcept;

}  // namespace starling::wall_clock

#endif  // STARLING_KERNEL_WALL_CLOCK_WALL_CLOCK_H_
