#include "net/netif/address_conflict.h"

#include <cstring>
#include <string_view>

#include "kernel/console/console.h"
#include "lwip/acd.h"
#include "lwip/dhcp.h"
#include "lwip/prot/dhcp.h"
#include "lwip/sys.h"
#include "net/netif/ip_config.h"

namespace starling::net {
namespace {

constinit AddressConflictStats stats;
constinit struct acd static_acd{};
constinit bool static_added = false;
// The DHCP client's own callback, called after ours.
constinit acd_conflict_callback_t dhcp_callback = nullptr;

void print_address(std::uint32_t address) {
  char text[16];
  console::print(std::string_view(text, format_ipv4(address, text)));
}

// Console lines about conflicts: one per 10 s at most (a host answering
// every probe, or a flood of claims, would otherwise fill the console); the
// counter has every conflict.
constexpr u32_t kPrintIntervalMs = 10'000;
constinit u32_t last_print_ms = 0;
constinit bool printed = false;

bool may_print() {
  const u32_t now = sys_now();
  if (printed && now - last_print_ms < kPrintIntervalMs) return false;
  printed = true;
  last_print_ms = now;
  return true;
}

void print_mac(const hal::MacAddress& mac) {
  char text[17];
  console::print(std::string_view(text, hal::format_mac(mac, text)));
}

void on_static(struct netif* netif, acd_callback_enum_t state) {
  switch (state) {
    case ACD_IP_OK:
      ++stats.checked;
      if (stats.in_conflict) {
        stats.in_conflict = false;
        console::print("net: address conflict over: no other host answers for ");
        print_address(lwip_ntohl(ip4_addr_get_u32(&static_acd.ipaddr)));
        console::print("\n");
      }
      break;
    case ACD_DECLINE:
      // Seen (counted and printed) by note_arp_frame as it came in.
      stats.in_conflict = true;
      break;
    case ACD_RESTART_CLIENT:
      // A static address has nothing to restart with: probe it again (lwIP
      // slows this to once a minute after 10 conflicts).
      (void)acd_start(netif, &static_acd, static_acd.ipaddr);
      break;
  }
}

void on_dhcp(struct netif* netif, acd_callback_enum_t state) {
  if (state == ACD_DECLINE) {
    ++stats.dhcp_declines;
    const struct dhcp* dhcp = netif_dhcp_data(netif);
    // Before the lease is bound the netif has no address, so the answer to
    // the probe was not a conflict with it (note_arp_frame): count it here.
    if (ip4_addr_isany_val(*netif_ip4_addr(netif))) {
      ++stats.conflicts;
      stats.address = lwip_ntohl(ip4_addr_get_u32(&dhcp->offered_ip_addr));
    }
    stats.in_conflict = true;
    if (may_print()) {
      console::print("net: address conflict: ");
      print_address(lwip_ntohl(ip4_addr_get_u32(&dhcp->offered_ip_addr)));
      console::print(" offered by DHCP is used by another host (declined; asking again)\n");
    }
  }
  if (dhcp_callback != nullptr) dhcp_callback(netif, state);
}

}  // namespace

void check_static_address(struct netif* netif, const ip4_addr_t& address) noexcept {
  if (ip4_addr_isany_val(address)) return;
  if (!static_added) {
    if (acd_add(netif, &static_acd, &on_static) != ERR_OK) return;
    static_added = true;
  }
  (void)acd_start(netif, &static_acd, address);
}

void note_arp_frame(struct netif* netif, std::span<const std::byte> frame) noexcept {
  // Ethernet (14), then ARP: sender hardware address at 8, sender IP at 14.
  constexpr std::size_t kSenderMac = 14 + 8;
  constexpr std::size_t kSenderIp = 14 + 14;
  const ip4_addr_t* ours = netif_ip4_addr(netif);
  if (frame.size() < kSenderIp + 4 || ip4_addr_isany(ours)) return;
  std::uint32_t sender = 0;  // network order, as lwIP keeps addresses
  std::memcpy(&sender, frame.data() + kSenderIp, 4);
  if (sender != ip4_addr_get_u32(ours)) return;
  if (std::memcmp(frame.data() + kSenderMac, netif->hwaddr, 6) == 0) return;
  ++stats.conflicts;
  stats.address = lwip_ntohl(sender);
  std::memcpy(stats.claimed_by.bytes.data(), frame.data() + kSenderMac, 6);
  stats.in_conflict = true;
  if (may_print()) {
    console::print("net: address conflict: ");
    print_address(stats.address);
    console::print(" is used by ");
    print_mac(stats.claimed_by);
    console::print(static_added ? " (static address kept; probing it again)\n"
                                : " (DHCP lease: declined if it goes on)\n");
  }
  // A static address past its probe (lwIP only defends it then): probe it
  // again, so that the gauge clears only once no host answers for it.
  if (static_added && static_acd.state == ACD_STATE_ONGOING) {
    (void)acd_start(netif, &static_acd, static_acd.ipaddr);
  }
}

void report_dhcp_conflicts(struct netif* netif) noexcept {
  struct dhcp* dhcp = netif_dhcp_data(netif);
  if (dhcp == nullptr || dhcp->acd.acd_conflict_callback == &on_dhcp) return;
  dhcp_callback = dhcp->acd.acd_conflict_callback;
  dhcp->acd.acd_conflict_callback = &on_dhcp;
}

const AddressConflictStats& address_conflict_stats() noexcept {
  return stats;
}

}  // namespace starling::net
