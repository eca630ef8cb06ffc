#include "net/sntp/sntp_clock.h"

#include <bit>
#include <iterator>
#include <string_view>

#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "kernel/text/writer.h"
#include "kernel/wall_clock/calendar.h"
#include "kernel/wall_clock/wall_clock.h"
#include "lwip/ip.h"
#include "net/address/ip_address.h"
#include "net/address/ip_address_lwip.h"

namespace starling::net {
namespace {

using wall_clock::kNanosecondsPerSecond;

// Seconds from the Unix epoch to NTP's era 1 (2036-02-07T06:28:16Z), as
// lwIP's sntp.c has them (DIFF_SEC_1970_2036).
constexpr std::int64_t kEra1UnixSeconds = 2'085'978'496;

constinit SntpStats g_stats{};
constinit std::uint32_t g_poll_seconds = kSntpDefaultPollSeconds;

// Who answered: the datagram lwIP is processing (sntp_recv runs inside
// udp_input, where lwIP keeps its source).
void put_sender(text::TextWriter& line) {
  const ip_addr_t* from = ip_current_src_addr();
  if (from == nullptr) {
    line.put("?");
    return;
  }
  char text[kIpTextMax];
  line.put(format_ip(from_lwip(*from), text));
}

// 1, 2, 4, 8...: the times a kind of refusal is worth a console line.
bool worth_a_line(std::uint64_t count) {
  return std::has_single_bit(count);
}

}  // namespace

const SntpStats& sntp_stats() noexcept {
  return g_stats;
}

void set_sntp_poll_seconds(std::uint32_t seconds) noexcept {
  g_poll_seconds = seconds < kSntpMinPollSeconds   ? kSntpMinPollSeconds
                   : seconds > kSntpMaxPollSeconds ? kSntpMaxPollSeconds
                                                   : seconds;
}

std::uint32_t sntp_poll_seconds() noexcept {
  return g_poll_seconds;
}

NtpTime to_ntp(std::int64_t unix_ns) noexcept {
  std::int64_t seconds = unix_ns / kNanosecondsPerSecond;
  std::int64_t ns = unix_ns % kNanosecondsPerSecond;
  if (ns < 0) {
    ns += kNanosecondsPerSecond;
    --seconds;
  }
  return {
      .seconds = static_cast<std::int32_t>(static_cast<std::uint32_t>(seconds - kEra1UnixSeconds)),
      .fraction = static_cast<std::uint32_t>((static_cast<std::uint64_t>(ns) << 32) /
                                             kNanosecondsPerSecond)};
}

std::int64_t from_ntp(NtpTime time) noexcept {
  const std::int64_t seconds = static_cast<std::int64_t>(time.seconds) + kEra1UnixSeconds;
  const auto ns = static_cast<std::int64_t>(
      (static_cast<std::uint64_t>(time.fraction) * kNanosecondsPerSecond) >> 32);
  return seconds * kNanosecondsPerSecond + ns;
}

void reset_sntp_stats_for_testing() noexcept {
  g_stats = SntpStats{};
  g_poll_seconds = kSntpDefaultPollSeconds;
}

}  // namespace starling::net

using starling::net::NtpTime;

extern "C" std::uint32_t starling_sntp_poll_ms(void) {
  return starling::net::g_poll_seconds * 1000u;
}

// Our transmit and destination timestamps. Unset, the clock is the floor
// plus the time since boot: RFC 4330's offset needs only that both come
// from one clock, so even the first answer is corrected for the round trip.
extern "C" void starling_sntp_get_time(std::int32_t* sec, std::uint32_t* frac) {
  namespace wc = starling::wall_clock;
  const std::uint64_t now = starling::hal::now_ns();
  const auto unix_ns = wc::unix_ns_at(now);
  const NtpTime t = starling::net::to_ntp(
      unix_ns ? *unix_ns
              : wc::kFloorUnixSeconds * wc::kNanosecondsPerSecond + static_cast<std::int64_t>(now));
  *sec = t.seconds;
  *frac = t.fraction;
}

// A response that passed lwIP's checks, its offset applied: the time now.
extern "C" void starling_sntp_set_time(std::int32_t sec, std::uint32_t frac) {
  namespace wc = starling::wall_clock;
  using starling::net::put_sender;
  const std::int64_t unix_ns = starling::net::from_ntp({.seconds = sec, .fraction = frac});
  const bool first = !wc::is_set();
  const auto step = wc::set(unix_ns, starling::hal::now_ns());
  starling::text::Line<160> line;
  if (!step.ok()) {
    if (!starling::net::worth_a_line(wc::stats().refused_floor)) return;
    line.put("clock: refused ");
    wc::write_rfc3339(unix_ns / wc::kNanosecondsPerSecond, line);
    line.put(" from ");
    put_sender(line);
    line.put(": before 2026-01-01, the earliest it takes\n");
    starling::console::print(line.view());
    return;
  }
  line.put("clock: ");
  wc::write_rfc3339(unix_ns / wc::kNanosecondsPerSecond, line);
  line.put(" from ");
  put_sender(line);
  if (first) {
    line.put(" (sntp, set)\n");
  } else {
    line.put(*step < 0 ? " (sntp, stepped back " : " (sntp, step ");
    line.put_fixed(wc::stats().last_step_abs_ns, 9);
    line.put(" s)\n");
  }
  starling::console::print(line.view());
}

extern "C" void starling_sntp_refused(int why) {
  using starling::net::g_stats;
  // By the patch's reason, 1 to 5 (SNTP_REFUSED_* in sntp.c).
  const struct {
    std::uint64_t* counter;
    std::string_view reason;
  } kinds[] = {
      {&g_stats.refused_origin, "not an answer to our request"},
      {&g_stats.refused_unsynchronised, "the server is not synchronised (leap indicator 3)"},
      {&g_stats.refused_stratum, "stratum past 15"},
      {&g_stats.refused_no_time, "no transmit time"},
      {&g_stats.kiss_of_death, "kiss-of-death (stratum 0): trying the next server"},
  };
  if (why < 1 || why > static_cast<int>(std::size(kinds))) return;
  const auto& kind = kinds[why - 1];
  if (!starling::net::worth_a_line(++*kind.counter)) return;
  starling::text::Line<160> line;
  line.put("clock: refused a response from ");
  starling::net::put_sender(line);
  line.put(": ");
  line.put(kind.reason);
  line.put("\n");
  starling::console::print(line.view());
}

extern "C" void starling_sntp_unsent(void) {
  ++starling::net::g_stats.unsent;
}
