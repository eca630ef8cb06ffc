#ifndef STARLING_NET_SNTP_SNTP_CLOCK_H_
#define STARLING_NET_SNTP_SNTP_CLOCK_H_

#include <cstdint>

// lwIP's SNTP application (src/apps/sntp/sntp.c, with patch 0019) reads
// and sets the system time through four C hooks lwipopts.h names; this is
// their side: the wall clock (kernel/wall_clock) in NTP's format, the poll
// interval, and a count of every response refused and why. Each accepted
// or refused time is a console line (`clock: ...`); a refusal of a kind is
// printed the 1st, 2nd, 4th, 8th... time, so a peer that sends them
// without end cannot flood the console.
namespace starling::net {

struct SntpStats {
  std::uint64_t refused_origin = 0;          // not an answer to our request
  std::uint64_t refused_unsynchronised = 0;  // leap indicator 3: the server has no time
  std::uint64_t refused_stratum = 0;         // stratum past 15
  std::uint64_t refused_no_time = 0;         // a transmit timestamp of zero
  std::uint64_t kiss_of_death = 0;           // stratum 0: the server asked us to go away
  std::uint64_t unsent =
      0;  // requests that could not be sent (no route or address yet): again in 1 s
  // Accepted (the clock took the time): wall_clock::stats().sets, as SNTP
  // is what sets the clock; a time before its floor:
  // wall_clock::stats().refused_floor.
};

const SntpStats& sntp_stats() noexcept;

// RFC 4330's floor for the poll interval, lwIP's default, and the most.
inline constexpr std::uint32_t kSntpMinPollSeconds = 15;
inline constexpr std::uint32_t kSntpDefaultPollSeconds = 3600;
inline constexpr std::uint32_t kSntpMaxPollSeconds = 86'400;

// The interval between polls of a server that answered (clamped to the
// range above).
void set_sntp_poll_seconds(std::uint32_t seconds) noexcept;
std::uint32_t sntp_poll_seconds() noexcept;

// NTP's 64-bit timestamp as lwIP's SNTP keeps it: seconds as a signed
// offset from era 1 (2036-02-07T06:28:16Z), so that 1968 to 2104 are
// representable, and a binary fraction of a second.
struct NtpTime {
  std::int32_t seconds = 0;
  std::uint32_t fraction = 0;
};
NtpTime to_ntp(std::int64_t unix_ns) noexcept;
std::int64_t from_ntp(NtpTime time) noexcept;

void reset_sntp_stats_for_testing() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_SNTP_SNTP_CLOCK_H_
