#include "net/netif/ipv6.h"

#include "kernel/console/console.h"
#include "lwip/dhcp6.h"
#include "lwip/ip6_addr.h"
#include "lwip/priv/nd6_priv.h"
#include "net/address/ip_address_lwip.h"
#include "net/port/ip6_gateway.h"

namespace starling::net {
namespace {

constinit Ipv6Stats g_stats{};
constinit Ip6Mode g_mode = Ip6Mode::kAuto;
constinit netif_ext_callback_t g_callback{};
constinit struct dhcp6 g_dhcp6{};

void print_address(const ip6_addr_t* address) noexcept {
  ip_addr_t any;
  ip_addr_copy_from_ip6(any, *address);
  char text[kIpTextMax];
  console::print(format_ip(from_lwip(any), text));
}

const char* origin(s8_t index) noexcept {
  if (index == 0) return "link-local";
  return g_mode == Ip6Mode::kStatic ? "static" : "SLAAC";
}

// lwIP's extended status callback: an address's state moved.
void on_netif_event(struct netif* netif, netif_nsc_reason_t reason,
                    const netif_ext_callback_args_t* args) noexcept {
  if ((reason & LWIP_NSC_IPV6_ADDR_STATE_CHANGED) == 0 || args == nullptr) return;
  const s8_t index = args->ipv6_addr_state_changed.addr_index;
  const u8_t old_state = args->ipv6_addr_state_changed.old_state;
  const u8_t state = netif_ip6_addr_state(netif, index);
  const ip6_addr_t* address = netif_ip6_addr(netif, index);
  if (ip6_addr_isvalid(state) && !ip6_addr_isvalid(old_state)) {
    ++g_stats.addresses_valid;
    console::print("net: ipv6 address ");
    print_address(address);
    console::print(" valid (");
    console::print(origin(index));
    console::print(")\n");
  } else if (ip6_addr_isduplicated(state)) {
    ++g_stats.duplicates;
    console::print("net: ipv6 address ");
    print_address(address);
    console::print(" is used by another host (duplicate address detection): not used\n");
  }
}

}  // namespace

void start_ipv6(struct netif* netif, const Ip6Config& config) noexcept {
  g_mode = config.mode;
  if (config.mode == Ip6Mode::kOff) return;
  netif_add_ext_callback(&g_callback, &on_netif_event);
  // EUI-64 from the MAC (RFC 4291): stable across boots without storage,
  // which RFC 7217's stable addresses would need for their secret
  // (docs/ipv6.md says why that suits a server).
  netif_create_ip6_linklocal_address(netif, 1);
  if (config.mode == Ip6Mode::kAuto) {
    netif_set_ip6_autoconfig_enabled(netif, 1);
    // Stateless DHCPv6 (RFC 8415 §6.1): an Information-request when a
    // router advertisement carries the O flag, for the DNS servers
    // (dns_servers.h prints them). Its state lives here, not on lwIP's heap.
    dhcp6_set_struct(netif, &g_dhcp6);
    if (dhcp6_enable_stateless(netif) != ERR_OK) {
      console::print("net: ipv6: stateless DHCPv6 not started (no UDP PCB for port 546)\n");
    }
    return;
  }
  const ip_addr_t address = to_lwip(config.address);
  s8_t index = -1;
  if (netif_add_ip6_address(netif, ip_2_ip6(&address), &index) != ERR_OK) {
    console::print("net: ipv6: no slot for the static address\n");
  }
  set_ip6_default_gateway(config.gateway);
}

err_t update_joined_groups(JoinedGroups& joined, const ip6_addr_t* group,
                           enum netif_mac_filter_action action) noexcept {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(group->addr);
  const JoinedGroups::Mac mac{0x33, 0x33, bytes[12], bytes[13], bytes[14], bytes[15]};
  if (action == NETIF_DEL_MAC_FILTER) {
    joined.remove(mac);
    return ERR_OK;
  }
  if (!joined.add(mac)) {
    ++g_stats.groups_refused;
    return ERR_MEM;
  }
  return ERR_OK;
}

JoinedGroups::Mac all_nodes_mac() noexcept {
  return {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
}

const Ipv6Stats& ipv6_stats() noexcept {
  return g_stats;
}

Nd6Occupancy nd6_occupancy() noexcept {
  Nd6Occupancy o;
  for (int i = 0; i < LWIP_ND6_NUM_NEIGHBORS; ++i)
    o.neighbors += neighbor_cache[i].state != ND6_NO_ENTRY;
  for (int i = 0; i < LWIP_ND6_NUM_DESTINATIONS; ++i) {
    o.destinations += !ip6_addr_isany(&destination_cache[i].destination_addr);
  }
  for (int i = 0; i < LWIP_ND6_NUM_PREFIXES; ++i) o.prefixes += prefix_list[i].netif != nullptr;
  for (int i = 0; i < LWIP_ND6_NUM_ROUTERS; ++i) {
    o.routers += default_router_list[i].neighbor_entry != nullptr;
  }
  return o;
}

}  // namespace starling::net
