#include "net/port/timers.h"

#include "lwip/timeouts.h"

namespace starling::net {

void run_due_timers() {
  sys_check_timeouts();
}

std::uint64_t next_timer_deadline_ns(std::uint64_t now_ns, std::uint64_t cap_ns) {
  constexpr std::uint64_t kNsPerMs = 1'000'000U;
  // Whole caps, not now + cap: the same answer all through one cap.
  const std::uint64_t capped = (now_ns / cap_ns + 1) * cap_ns;
  const u32_t ms = sys_timeouts_sleeptime();
  if (ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE) return capped;
  // sys_now() is now_ns() in whole milliseconds: due = its ms + sleeptime.
  const std::uint64_t due = (now_ns / kNsPerMs + ms) * kNsPerMs;
  return due < capped ? due : capped;
}

}  // namespace starling::net
