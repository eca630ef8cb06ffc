#include "net/netif/ip_metrics.h"

#include <cstdint>

#include "net/fairness/reassembly_share.h"
#include "net/netif/address_conflict.h"
#include "net/netif/dns_servers.h"
#include "net/netif/ipv6.h"
#include "net/port/icmp6_rate.h"
#include "net/port/random.h"

namespace starling::net {

Result<void> register_ip_metrics(metrics::Registry& registry) {
  const Result<void> results[] = {
      registry.add(
          {.name = "starling_entropy_ok",
           .help = "1 if TCP sequence numbers and lwIP's random numbers are seeded "
                   "from the board's entropy, else 0.",
           .type = metrics::Type::kGauge,
           .line_key = "entropy_ok"},
          [](const void*) -> std::uint64_t { return entropy_status().ok ? 1 : 0; }, nullptr),
      registry.add({.name = "starling_ip_address_conflicts_total",
                    .help = "Another host on the link answered for or claimed our IPv4 address "
                            "(RFC 5227 probe or ARP), a DHCP lease declined for it included.",
                    .line_key = "addr_conflicts"},
                   &address_conflict_stats().conflicts),
      registry.add(
          {.name = "starling_ip_address_conflict",
           .help = "1 from an address conflict until a later probe finds the address free.",
           .type = metrics::Type::kGauge,
           .line_key = ""},
          [](const void*) -> std::uint64_t { return address_conflict_stats().in_conflict ? 1 : 0; },
          nullptr),
      registry.add({.name = "starling_icmp6_errors_limited_total",
                    .help = "ICMPv6 error messages not sent: the rate limit (RFC 4443 2.4 (f); "
                            "100 a second, bursts of 20) was reached.",
                    .line_key = "icmp6_limited"},
                   &icmp6_rate_stats().limited),
      registry.add({.name = "starling_ipv6_addresses_valid_total",
                    .help = "IPv6 addresses that became valid (link-local, SLAAC or static) "
                            "after duplicate address detection.",
                    .line_key = ""},
                   &ipv6_stats().addresses_valid),
      registry.add({.name = "starling_ipv6_address_duplicates_total",
                    .help = "IPv6 addresses duplicate address detection found in use by "
                            "another host (not used).",
                    .line_key = ""},
                   &ipv6_stats().duplicates),
      registry.add({.name = "starling_ipv6_groups_refused_total",
                    .help = "Multicast groups IPv6 could not join: the netif's group filter "
                            "was full (8).",
                    .line_key = ""},
                   &ipv6_stats().groups_refused),
      registry.add(
          {.name = "starling_ipv6_neighbors",
           .help = "IPv6 neighbour cache entries in use (of 64).",
           .type = metrics::Type::kGauge,
           .line_key = "nd6_neighbors"},
          [](const void*) -> std::uint64_t { return nd6_occupancy().neighbors; }, nullptr),
      registry.add(
          {.name = "starling_ipv6_destinations",
           .help = "IPv6 destination cache entries in use (of 64).",
           .type = metrics::Type::kGauge,
           .line_key = ""},
          [](const void*) -> std::uint64_t { return nd6_occupancy().destinations; }, nullptr),
      registry.add(
          {.name = "starling_ipv6_prefixes",
           .help = "On-link IPv6 prefixes from router advertisements (of 8).",
           .type = metrics::Type::kGauge,
           .line_key = ""},
          [](const void*) -> std::uint64_t { return nd6_occupancy().prefixes; }, nullptr),
      registry.add(
          {.name = "starling_ipv6_routers",
           .help = "IPv6 default routers from router advertisements (of 3).",
           .type = metrics::Type::kGauge,
           .line_key = ""},
          [](const void*) -> std::uint64_t { return nd6_occupancy().routers; }, nullptr),
      registry.add(
          {.name = "starling_dns_servers",
           .help = "DNS servers the network handed out (DHCP, stateless DHCPv6), of 2.",
           .type = metrics::Type::kGauge,
           .line_key = "dns_servers"},
          [](const void*) -> std::uint64_t { return dns_server_stats().count; }, nullptr),
      registry.add({.name = "starling_dns_server_changes_total",
                    .help = "Times the set of DNS servers changed.",
                    .line_key = ""},
                   &dns_server_stats().changes),
      registry.add(
          {.name = "starling_ip_reass_refused_peer_total",
           .help = "IP fragments (both families) dropped or datagrams freed: their peer held its "
                   "share of reassembly (starling.reass_peer_share=).",
           .line_key = "reass_refused_peer"},
          &reassembly_peer_refusals()),
  };
  for (const Result<void>& result : results) {
    if (!result.ok()) return result;
  }
  return {};
}

}  // namespace starling::net
