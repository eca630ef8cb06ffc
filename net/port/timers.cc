#include "net/port/timers.h"

#include "lwip/pbuf.h"
#include "lwip/timeouts.h"

namespace starling::net {
namespace {

// lwIP's earliest timeout as next_timer_deadline_ns() last saw it, in
// hal::now_ns() time (0: not yet asked, so the first call looks).
std::uint64_t g_due_ns = 0;

}  // namespace

void run_due_timers(std::uint64_t now_ns) {
  // What sys_check_timeouts() does first, due or not: out-of-order queues
  // freed when PBUF_POOL ran dry.
  PBUF_CHECK_FREE_OOSEQ();
  // Nothing was due before g_due_ns when it was computed. A timeout added
  // since (input, an application) is due no earlier than it was added, and
  // the next next_timer_deadline_ns() sees it: at worst the loop goes round
  // once more. Skipping the walk saved ~40 instructions a packet.
  if (now_ns < g_due_ns) return;
  sys_check_timeouts();
}

std::uint64_t next_timer_deadline_ns(std::uint64_t now_ns, std::uint64_t cap_ns) {
  constexpr std::uint64_t kNsPerMs = 1'000'000U;
  // Whole caps, not now + cap: the same answer all through one cap.
  const std::uint64_t capped = (now_ns / cap_ns + 1) * cap_ns;
  const u32_t ms = sys_timeouts_sleeptime();
  if (ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE) {
    g_due_ns = capped;
    return capped;
  }
  // sys_now() is now_ns() in whole milliseconds: due = its ms + sleeptime.
  const std::uint64_t due = (now_ns / kNsPerMs + ms) * kNsPerMs;
  g_due_ns = due;
  return due < capped ? due : capped;
}

}  // namespace starling::net
