#ifndef STARLING_NET_PORT_ICMP6_RATE_H_
#define STARLING_NET_PORT_ICMP6_RATE_H_

#include <cstdint>

// The rate limit of the ICMPv6 error messages the stack originates (RFC
// 4443 section 2.4 (f); lwIP's LWIP_HOOK_ICMP6_ERROR_ADMIT, patch 0009): a
// token bucket of kIcmp6ErrorBurst messages, refilled at
// kIcmp6ErrorsPerSecond, shared by all peers. A peer that sends to closed
// ports or bad headers as fast as it can draws at most that many errors a
// second, so the appliance never transmits in proportion to an attacker's
// rate; Linux's default (icmp_msgs_per_sec 1000, burst 50) is for a
// general-purpose host, and an appliance has fewer reasons to explain
// itself.
namespace starling::net {

inline constexpr std::uint32_t kIcmp6ErrorsPerSecond = 100;
inline constexpr std::uint32_t kIcmp6ErrorBurst = 20;

struct Icmp6RateStats {
  std::uint64_t sent = 0;     // errors the bucket admitted
  std::uint64_t limited = 0;  // errors dropped: the bucket was empty
};

// Whether one more error may go at `now_ns` (takes a token if so).
bool admit_icmp6_error(std::uint64_t now_ns) noexcept;

const Icmp6RateStats& icmp6_rate_stats() noexcept;

// For tests: a full bucket at `now_ns`, counters kept.
void reset_icmp6_rate_for_testing(std::uint64_t now_ns) noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_PORT_ICMP6_RATE_H_
