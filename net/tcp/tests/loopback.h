#ifndef STARLING_NET_TCP_TESTS_LOOPBACK_H_
#define STARLING_NET_TCP_TESTS_LOOPBACK_H_

#include <cstddef>
#include <cstdint>

#include "kernel/async/task.h"

// Test support: lwIP in-process on a loopback netif (10.0.0.1/24). Output
// copies each IP packet into a queue; pump() feeds the queue back through
// netif->input (never re-entering lwIP from inside lwIP) and runs
// sys_check_timeouts(), sleeping until there is work or the next timer.
namespace starling::net::testing {

inline constexpr std::uint8_t kLoopbackIp[4] = {10, 0, 0, 1};

// lwip_init() and the netif, once per process.
void init_lwip_once() noexcept;
// Runs forever (cancel it: spawn in a Scope). Feeds queued packets back and
// runs lwIP's timers.
async::Task<void> pump() noexcept;
// Packets still queued / dropped because the queue was full.
std::size_t queued_packets() noexcept;
std::uint64_t dropped_packets() noexcept;
// Drops every queued packet (between tests).
void flush_packets() noexcept;

// lwIP's clock (sys_now) runs `speed` times faster than the host's, and the
// pump sleeps correspondingly less: retransmission and TIME_WAIT timers that
// take seconds pass in milliseconds. Set it before init_lwip_once() and never
// change it (sys_now must stay monotonic). Default 1.
void set_lwip_clock_speed(std::uint32_t speed) noexcept;
std::uint32_t lwip_clock_speed() noexcept;

}  // namespace starling::net::testing

#endif  // STARLING_NET_TCP_TESTS_LOOPBACK_H_
