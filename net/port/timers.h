#ifndef STARLING_NET_PORT_TIMERS_H_
#define STARLING_NET_PORT_TIMERS_H_

#include <cstdint>

// lwIP's timeouts (NO_SYS=1) on the coroutine executor: the netif's run()
// loop calls run_due_timers() after every wake-up and sleeps at most
// next_timer_ns() before calling it again. lwIP is entered only from tasks.
namespace starling::net {

// Runs every lwIP timeout that is due (sys_check_timeouts()).
void run_due_timers();

// Nanoseconds until the next lwIP timeout (sys_timeouts_sleeptime()),
// capped at `cap_ns`; cap_ns when none is pending.
std::uint64_t next_timer_ns(std::uint64_t cap_ns);

}  // namespace starling::net

#endif  // STARLING_NET_PORT_TIMERS_H_
