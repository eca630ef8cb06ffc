#ifndef STARLING_NET_NETIF_DNS_SERVERS_H_
#define STARLING_NET_NETIF_DNS_SERVERS_H_

#include <cstdint>

// The DNS servers the network hands out (DHCPv4's option 6, stateless
// DHCPv6's option 23 after a router advertisement with the O flag), as
// lwIP's resolver keeps them (DNS_MAX_SERVERS slots, each protocol writing
// from slot 0: whichever answered last). lwIP tells nobody when they
// change, so a one-second lwIP timer compares them with what was last
// printed and prints the new set: `net: dns servers 2001:db8:1::53`.
namespace starling::net {

struct DnsServerStats {
  std::uint64_t changes = 0;  // times the set of servers changed
  std::uint64_t count = 0;    // servers set now
};

// Starts the watch (once; lwIP initialised). A no-op when it runs already.
void watch_dns_servers() noexcept;

const DnsServerStats& dns_server_stats() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_DNS_SERVERS_H_
