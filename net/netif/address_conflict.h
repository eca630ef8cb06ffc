#ifndef STARLING_NET_NETIF_ADDRESS_CONFLICT_H_
#define STARLING_NET_NETIF_ADDRESS_CONFLICT_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/hal/nic.h"
#include "lwip/netif.h"

// IPv4 address conflict detection (RFC 5227, lwIP 2.2's acd module) for the
// netif's address, reported instead of silently shared:
//
// - Any ARP frame whose sender is another hardware address with our IPv4
//   address (an answer to our probe, a host announcing or using it) is a
//   conflict: counted (starling_ip_address_conflicts_total), printed on the
//   console with the other host's hardware address ("net: address
//   conflict: A.B.C.D is used by 52:55:..."; at most once per 10 s, the
//   count has them all) and shown by the gauge starling_ip_address_conflict
//   until a probe finds the address free again. The netif hands every ARP
//   frame here before lwIP reads it (note_arp_frame).
// - A static address is probed each time the link comes up (three ARP
//   probes, then two announcements: 4 to 9 s) while it is already in use:
//   the appliance has no other address to fall back to, so it keeps it.
//   After a conflict it is probed again (lwIP: after 10 conflicts, once a
//   minute), which is what clears the gauge; lwIP defends it once per 10 s
//   (an announcement) while no probe runs.
// - A DHCP lease is probed by lwIP's DHCP client before it is bound
//   (LWIP_DHCP_DOES_ACD_CHECK); a conflict makes it decline the lease
//   (DHCPDECLINE) and ask again after 10 s. The decline is printed and
//   counted (the client's callback is wrapped, not replaced).
//
// One netif (LWIP_SINGLE_NETIF): lwIP's callback carries no context, so
// the state is this module's own.
namespace starling::net {

struct AddressConflictStats {
  std::uint64_t conflicts = 0;      // conflicts seen (probe answered, address claimed)
  std::uint64_t dhcp_declines = 0;  // leases declined for a conflict
  std::uint64_t checked = 0;        // probes that found the address free
  std::uint32_t address = 0;        // the address of the last conflict (host order)
  hal::MacAddress claimed_by;       // the other host's hardware address (ARP conflicts)
  bool in_conflict = false;         // since the last conflict, no probe found it free
};

// Starts probing `address` (network order, as the netif holds it) on
// `netif`: when the link comes up with a static address.
void check_static_address(struct netif* netif, const ip4_addr_t& address) noexcept;

// An ARP frame (Ethernet header first, at least 42 bytes: the netif's frame
// filter passed it), before lwIP reads it.
void note_arp_frame(struct netif* netif, std::span<const std::byte> frame) noexcept;

// Wraps the DHCP client's conflict callback (after dhcp_start()).
void report_dhcp_conflicts(struct netif* netif) noexcept;

const AddressConflictStats& address_conflict_stats() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_ADDRESS_CONFLICT_H_
