#ifndef STARLING_NET_PORT_TIMERS_H_
#define STARLING_NET_PORT_TIMERS_H_

#include <cstdint>

// lwIP's timeouts (NO_SYS=1) on the coroutine executor: the netif's run()
// loop calls run_due_timers() after every wake-up and sleeps at most until
// next_timer_deadline_ns() before calling it again. lwIP is entered only
// from tasks. One netif loop drives them (the earliest due time is kept
// here between the two calls).
namespace starling::net {

// Runs every lwIP timeout that is due at `now_ns` (sys_check_timeouts()),
// without walking lwIP's list when the earliest one the last
// next_timer_deadline_ns() saw is not due yet; frees out-of-order queues if
// PBUF_POOL ran dry, either way.
void run_due_timers(std::uint64_t now_ns);

// When the next lwIP timeout is due, in hal::now_ns() time, seen from
// `now_ns` (sys_timeouts_sleeptime() from then); with none pending, or
// later than that, the next multiple of `cap_ns`. The answer does not move
// while lwIP's timeout list does not (lwIP keeps absolute due times in
// sys_now()'s milliseconds), so the netif's one wake-up timer stays armed
// from one receive to the next (async::Deadline).
std::uint64_t next_timer_deadline_ns(std::uint64_t now_ns, std::uint64_t cap_ns);

}  // namespace starling::net

#endif  // STARLING_NET_PORT_TIMERS_H_
