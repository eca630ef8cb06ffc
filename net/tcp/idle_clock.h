#ifndef STARLING_NET_TCP_IDLE_CLOCK_H_
#define STARLING_NET_TCP_IDLE_CLOCK_H_

#include <cstddef>
#include <cstdint>

#include "kernel/hal/clock.h"
#include "net/tcp/tcp.h"

// How long a server lets a connection say nothing: its normal limit, or a
// shorter one while its table is under pressure (more than three quarters of
// its slots held), as servers under attack shorten theirs. A peer holding
// many idle connections then loses them in `pressed_ns`, and everyone else
// gets the slots back, instead of waiting out the normal limit (issue 27).
//
//   net::IdleClock idle(kPolicy);
//   for (;;) {
//     const std::uint64_t wait = idle.next_wait_ns(net::tcp_table_pressed());
//     if (wait == 0) break;                        // quiet past the limit in force
//     auto n = co_await async::with_timeout(stream.read(buf), wait);
//     if (!n.ok() && n.error() == Error::kTimedOut) continue;  // look again
//     idle.heard();
//     ...
//   }
//
// A wait is never longer than kLookAgainNs, so a table that comes under
// pressure shortens the waits already under way within that time. (A
// cancelled read leaves the stream as it was: tcp.h.)
namespace starling::net {

struct IdlePolicy {
  std::uint64_t idle_ns;          // the normal limit
  std::uint64_t pressed_idle_ns;  // the limit while the table is under pressure
};

class IdleClock {
 public:
  // How often a quiet connection looks at the pressure again.
  static constexpr std::uint64_t kLookAgainNs = 1'000'000'000;

  explicit IdleClock(IdlePolicy policy) noexcept : policy_(policy), heard_at_ns_(hal::now_ns()) {}

  // The peer said something: its quiet time starts again.
  void heard() noexcept { heard_at_ns_ = hal::now_ns(); }

  // How long the next wait for the peer may last; 0 once it has been quiet
  // past the limit now in force (pressed: the table is under pressure). The
  // last call's `pressed` is remembered for closed_under_pressure().
  std::uint64_t next_wait_ns(bool pressed) noexcept {
    pressed_ = pressed;
    const std::uint64_t limit = pressed ? policy_.pressed_idle_ns : policy_.idle_ns;
    const std::uint64_t quiet = hal::now_ns() - heard_at_ns_;
    if (quiet >= limit) return 0;
    const std::uint64_t left = limit - quiet;
    return left < kLookAgainNs ? left : kLookAgainNs;
  }

  // Whether the limit that ended the connection was the shorter one.
  bool closed_under_pressure() const noexcept { return pressed_; }

 private:
  IdlePolicy policy_;
  std::uint64_t heard_at_ns_;
  bool pressed_ = false;
};

// More than three quarters of `capacity` held: the point at which servers
// shorten their idle limits.
constexpr bool table_pressed(std::size_t in_use, std::size_t capacity) noexcept {
  return in_use * 4 > capacity * 3;
}

// The TCP connection table (MEMP_NUM_TCP_PCB slots) under pressure.
inline bool tcp_table_pressed() noexcept {
  const TcpStats& s = tcp_stats();
  return table_pressed(s.connections_in_use, s.pool_size);
}

}  // namespace starling::net

#endif  // STARLING_NET_TCP_IDLE_CLOCK_H_
