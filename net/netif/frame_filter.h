#ifndef STARLING_NET_NETIF_FRAME_FILTER_H_
#define STARLING_NET_NETIF_FRAME_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <span>

// The netif's look at a received frame before lwIP sees it (issue 12):
// frames too short for the protocol they name are dropped and counted, so
// lwIP never reads past them (lwIP's etharp_input, 2.1.3's and 2.2.1's,
// reads the 28-byte ARP header without checking the frame holds it), and
// multicast the appliance never joined is not accepted (without LWIP_IGMP,
// lwIP's ip4_input takes every multicast datagram as its own: a UDP echo would
// answer 224.0.0.251). Broadcast stays: ARP and DHCP need it; services
// decide for themselves whether to answer it (net/udp: Datagram::unicast).
namespace starling::net {

enum class FrameVerdict : std::uint8_t {
  kPass,
  kArp,            // ARP, whole: passes (the netif looks at it first: address_conflict.h)
  kRuntArp,        // ARP with less than its 28-byte payload
  kRuntIpv4,       // IPv4 shorter than 20 bytes, or than its own IHL / total length
  kBadIpv4Header,  // version not 4, or IHL under 5 words
  kMulticast,      // to a group address (Ethernet or IPv4) not joined
};

// `frame`: destination MAC first, no FCS; at least 14 bytes (drivers drop
// shorter ones).
constexpr FrameVerdict classify_frame(std::span<const std::byte> frame) noexcept {
  constexpr std::size_t kEthHeader = 14;
  if (frame.size() < kEthHeader) return FrameVerdict::kRuntIpv4;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(frame[i]); };
  const std::size_t payload = frame.size() - kEthHeader;
  const std::uint16_t ethertype = static_cast<std::uint16_t>((byte(12) << 8) | byte(13));
  bool broadcast_mac = true;
  for (std::size_t i = 0; i < 6; ++i) broadcast_mac = broadcast_mac && byte(i) == 0xFF;
  const bool group_mac = (byte(0) & 1) != 0;
  if (group_mac && !broadcast_mac) return FrameVerdict::kMulticast;
  if (ethertype == 0x0806) {
    return payload < 28 ? FrameVerdict::kRuntArp : FrameVerdict::kArp;
  }
  if (ethertype != 0x0800) return FrameVerdict::kPass;  // lwIP drops what it does not know
  if (payload < 20) return FrameVerdict::kRuntIpv4;
  const std::uint8_t version_ihl = byte(kEthHeader);
  const std::size_t ihl = std::size_t{version_ihl & 0x0Fu} * 4;
  if ((version_ihl >> 4) != 4 || ihl < 20) return FrameVerdict::kBadIpv4Header;
  const std::size_t total = (std::size_t{byte(kEthHeader + 2)} << 8) | byte(kEthHeader + 3);
  if (payload < ihl || payload < total || total < ihl) return FrameVerdict::kRuntIpv4;
  if ((byte(kEthHeader + 16) & 0xF0) == 0xE0) return FrameVerdict::kMulticast;  // 224.0.0.0/4
  return FrameVerdict::kPass;
}

// An IPv4 frame that is a fragment (more fragments, or an offset): its
// transport checksum covers other frames too. `frame` passed classify_frame().
constexpr bool is_ipv4_fragment(std::span<const std::byte> frame) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(frame[i]); };
  if (frame.size() < 14 + 20 || byte(12) != 0x08 || byte(13) != 0x00) return false;
  return (byte(14 + 6) & 0x3F) != 0 || byte(14 + 7) != 0;
}

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_FRAME_FILTER_H_
