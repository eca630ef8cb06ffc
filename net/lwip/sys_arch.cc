// lwIP's system glue for NO_SYS=1: the only thing lwIP asks of the system is
// a millisecond clock for its timeouts (sys_check_timeouts, which the
// executor calls). No threads, semaphores, mailboxes or critical sections:
// lwIP runs only in task context on the one hart (SYS_LIGHTWEIGHT_PROT=0).
#include "lwip/sys.h"

#include <cstdint>

#include "kernel/hal/clock.h"

extern "C" u32_t sys_now(void) {
  // Wraps after 49.7 days; lwIP compares timeouts modulo 2^32.
  return static_cast<u32_t>(starling::hal::now_ns() / 1'000'000U);
}
