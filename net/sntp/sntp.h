#ifndef STARLING_NET_SNTP_SNTP_H_
#define STARLING_NET_SNTP_SNTP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"
#include "kernel/text/writer.h"
#include "net/address/ip_address.h"
#include "net/sntp/sntp_clock.h"

// The wall clock from the network (docs/clock.md): lwIP's SNTP client
// (RFC 4330, unicast polls) sets kernel/wall_clock from the servers the
// kernel command line names or, without them, from those DHCP (option 42)
// and stateless DHCPv6 (option 31) hand out:
//   sntp=ADDR[,ADDR]   these servers (IPv4 or IPv6, at most two), in turn
//   sntp=dhcp          the network's (the default)
//   sntp=off           no SNTP: the clock stays unset
//   sntp.poll_s=N      seconds between polls of a server that answered
//                      (15 to 86400, default 3600)
// A server that does not answer within 15 s is left for the next; while
// none answers, lwIP backs off, doubling the wait up to 150 s.
namespace starling::net {

inline constexpr std::size_t kSntpMaxServers = 2;  // SNTP_MAX_SERVERS (lwipopts.h)

struct SntpConfig {
  enum class Mode : std::uint8_t { kDhcp, kServers, kOff };
  Mode mode = Mode::kDhcp;
  std::array<IpAddress, kSntpMaxServers> servers{};
  std::size_t server_count = 0;
  std::uint32_t poll_seconds = kSntpDefaultPollSeconds;
};

// sntp= and sntp.poll_s= from `bootargs`. A value that cannot be taken is
// refused whole (the default stays) and `why` gets one clause naming the
// fix, e.g. "sntp=10.0.2.300: not an IPv4 or IPv6 address; fix:
// sntp=ADDR[,ADDR], sntp=dhcp or sntp=off"; false then.
bool parse_sntp_bootargs(std::string_view bootargs, SntpConfig& config, text::TextWriter& why);

// Where the servers come from, before the netif starts: DHCP and DHCPv6
// may answer before the address is up, and their servers are kept only
// once this has said to (kDhcp: from here on, what they hand out).
void configure_sntp(const SntpConfig& config) noexcept;
// Starts polling (lwIP initialised): nothing for kOff. A server already
// known is polled at once; with kDhcp the first poll waits for a lease
// that names one (and then goes at once: lwIP patch 0020).
void start_sntp(const SntpConfig& config) noexcept;
// Stops it (start_sntp() may then start it again, with a new request).
void stop_sntp() noexcept;

// The clock's and the client's state in the registry:
// starling_clock_synchronized, starling_clock_unix_seconds, steps and
// refusals (docs/metrics-reference.md).
Result<void> register_clock_metrics(metrics::Registry& registry);

}  // namespace starling::net

#endif  // STARLING_NET_SNTP_SNTP_H_
