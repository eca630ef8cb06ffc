#ifndef STARLING_NET_NETIF_IPV6_H_
#define STARLING_NET_NETIF_IPV6_H_

#include <cstdint>

#include "lwip/netif.h"
#include "net/netif/frame_filter.h"
#include "net/netif/ip_config.h"

// The netif's IPv6 side (docs/ipv6.md), the parts that do not depend on the
// NIC's type: the addresses a configuration asks for, the console lines as
// each becomes valid, and the Ethernet groups lwIP's MLD joins.
namespace starling::net {

struct Ipv6Stats {
  std::uint64_t addresses_valid = 0;  // addresses that passed DAD (or were static)
  std::uint64_t duplicates = 0;       // addresses DAD found in use by another host
  std::uint64_t groups_refused = 0;   // joins past JoinedGroups::kMax
};

// Before netif_set_up: with IPv6 not off, the link-local address (EUI-64,
// from the MAC) and, per `config`, SLAAC or the static address and its
// gateway; the console then prints every address as it becomes valid or is
// found duplicate. Once per image (the one netif).
void start_ipv6(struct netif* netif, const Ip6Config& config) noexcept;

// lwIP's MLD MAC filter callback's work: `group` (an IPv6 multicast
// address) joins or leaves `joined` as its Ethernet address, 33:33 and the
// group's last four bytes.
err_t update_joined_groups(JoinedGroups& joined, const ip6_addr_t* group,
                           enum netif_mac_filter_action action) noexcept;

// The Ethernet address of the all-nodes group (ff02::1), which a netif
// accepts from the start (lwIP never joins it through MLD).
JoinedGroups::Mac all_nodes_mac() noexcept;

const Ipv6Stats& ipv6_stats() noexcept;

// What neighbour discovery holds now (lwIP's tables, bounded in
// lwipopts.h): the gauges a hostile-peer test watches go back to baseline.
struct Nd6Occupancy {
  std::uint64_t neighbors = 0;     // of LWIP_ND6_NUM_NEIGHBORS
  std::uint64_t destinations = 0;  // of LWIP_ND6_NUM_DESTINATIONS
  std::uint64_t prefixes = 0;      // of LWIP_ND6_NUM_PREFIXES
  std::uint64_t routers = 0;       // of LWIP_ND6_NUM_ROUTERS
};
Nd6Occupancy nd6_occupancy() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_IPV6_H_
