#include "kernel/wall_clock/wall_clock.h"

#include "kernel/hal/clock.h"

namespace starling::wall_clock {
namespace {

// unix_ns - now_ns: one subtraction at set, one addition per reading.
constinit std::int64_t g_offset_ns = 0;
constinit bool g_set = false;
constinit Stats g_stats{};

}  // namespace

Result<std::int64_t> set(std::int64_t unix_ns, std::uint64_t at_ns) noexcept {
  if (unix_ns < kFloorUnixSeconds * kNanosecondsPerSecond) {
    ++g_stats.refused_floor;
    return Unexpected(Error::kInvalidArgument);
  }
  const auto monotonic = static_cast<std::int64_t>(at_ns);
  const std::int64_t offset = unix_ns - monotonic;
  const std::int64_t step = g_set ? offset - g_offset_ns : 0;
  g_offset_ns = offset;
  g_set = true;
  ++g_stats.sets;
  if (step < 0) ++g_stats.steps_back;
  g_stats.last_step_abs_ns = static_cast<std::uint64_t>(step < 0 ? -step : step);
  g_stats.last_set_ns = at_ns;
  return step;
}

bool is_set() noexcept {
  return g_set;
}

std::optional<std::int64_t> unix_ns_at(std::uint64_t at_ns) noexcept {
  if (!g_set) return std::nullopt;
  return g_offset_ns + static_cast<std::int64_t>(at_ns);
}

std::optional<std::int64_t> now_unix_ns() noexcept {
  return unix_ns_at(hal::now_ns());
}

std::optional<std::int64_t> now_unix_seconds() noexcept {
  const auto ns = now_unix_ns();
  if (!ns) return std::nullopt;
  return *ns / kNanosecondsPerSecond;
}

const Stats& stats() noexcept {
  return g_stats;
}

void reset_for_testing() noexcept {
  g_offset_ns = 0;
  g_set = false;
  g_stats = Stats{};
}

}  // namespace starling::wall_clock
