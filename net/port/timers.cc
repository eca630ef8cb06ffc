#include "net/port/timers.h"

#include "lwip/timeouts.h"

namespace starling::net {

void run_due_timers() {
  sys_check_timeouts();
}

std::uint64_t next_timer_ns(std::uint64_t cap_ns) {
  const u32_t ms = sys_timeouts_sleeptime();
  if (ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE) return cap_ns;
  const std::uint64_t ns = static_cast<std::uint64_t>(ms) * 1'000'000U;
  return ns < cap_ns ? ns : cap_ns;
}

}  // namespace starling::net
