#ifndef STARLING_NET_NETIF_FRAME_FILTER_H_
#define STARLING_NET_NETIF_FRAME_FILTER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/wire/byte_order.h"
#include "kernel/wire/frame.h"

// The netif's look at a received frame before lwIP sees it (issue 12):
// frames too short for the protocol they name are dropped and counted, so
// lwIP never reads past them (lwIP's etharp_input, 2.1.3's and 2.2.1's,
// reads the 28-byte ARP header without checking the frame holds it), and
// multicast the appliance never joined is not accepted (without LWIP_IGMP,
// lwIP's ip4_input takes every multicast datagram as its own: a UDP echo would
// answer 224.0.0.251). Broadcast stays: ARP and DHCP need it; services
// decide for themselves whether to answer it (net/udp: Datagram::unicast).
// IPv6 (issue 30, docs/ipv6.md): the same for its header and payload
// length, Ethernet group addresses pass only when the stack joined them
// (JoinedGroups: all-nodes, each address's solicited-node group, what MLD
// joins), and a chain of more than kMaxIpv6ExtensionHeaders extension
// headers is dropped before lwIP walks it.
namespace starling::net {

enum class FrameVerdict : std::uint8_t {
  kPass,
  kArp,            // ARP, whole: passes (the netif looks at it first: address_conflict.h)
  kRuntArp,        // ARP with less than its 28-byte payload
  kRuntIpv4,       // IPv4 shorter than 20 bytes, or than its own IHL / total length
  kBadIpv4Header,  // version not 4, or IHL under 5 words
  kMulticast,      // to a group address (Ethernet or IPv4) not joined
  kRuntIpv6,  // IPv6 shorter than 40 bytes, than its payload length, or than a header it chains
  kBadIpv6Header,  // version not 6
  kLongIpv6Chain,  // more than kMaxIpv6ExtensionHeaders extension headers
};

// Extension headers a frame may chain before its upper-layer header. RFC
// 8200's recommended order has at most 6 kinds once each (hop-by-hop,
// destination options twice, routing, fragment, AH, ESP); lwIP handles four
// of them. Longer chains are only ever an attack (RFC 7112, RFC 9098).
inline constexpr std::size_t kMaxIpv6ExtensionHeaders = 6;

// The Ethernet group addresses the stack has joined (33:33:xx:xx:xx:xx for
// IPv6). lwIP tells the netif through its MLD MAC filter callback; a full
// set refuses more (the stack then cannot join that group: counted by the
// netif).
class JoinedGroups {
 public:
  static constexpr std::size_t kMax = 8;
  using Mac = std::array<std::uint8_t, 6>;

  constexpr bool contains(std::span<const std::byte> mac) const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      bool same = true;
      for (std::size_t b = 0; b < 6; ++b)
        same = same && macs_[i][b] == static_cast<std::uint8_t>(mac[b]);
      if (same) return true;
    }
    return false;
  }
  // A group may be joined by more than one address: counted per join.
  constexpr bool add(const Mac& mac) noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      if (macs_[i] == mac) {
        ++joins_[i];
        return true;
      }
    }
    if (count_ == kMax) return false;
    macs_[count_] = mac;
    joins_[count_] = 1;
    ++count_;
    return true;
  }
  constexpr void remove(const Mac& mac) noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      if (macs_[i] != mac) continue;
      if (--joins_[i] != 0) return;
      macs_[i] = macs_[count_ - 1];
      joins_[i] = joins_[count_ - 1];
      --count_;
      return;
    }
  }
  constexpr std::size_t size() const noexcept { return count_; }
  constexpr std::span<const Mac> macs() const noexcept { return {macs_.data(), count_}; }

 private:
  std::array<Mac, kMax> macs_{};
  std::array<std::uint16_t, kMax> joins_{};
  std::size_t count_ = 0;
};

namespace detail {

// The IPv6 packet after the Ethernet header: its header, its payload
// length, and the extension header chain's length and bound.
constexpr FrameVerdict classify_ipv6(std::span<const std::byte> packet) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(packet[i]); };
  constexpr std::size_t kHeader = wire::kIpv6HeaderBytes;
  if (packet.size() < kHeader) return FrameVerdict::kRuntIpv6;
  if ((byte(0) >> 4) != 6) return FrameVerdict::kBadIpv6Header;
  const std::size_t payload = wire::be16(packet, 4);
  // Payload length 0 is a jumbogram's (RFC 2675), which lwIP does not take.
  if (payload == 0 || packet.size() < kHeader + payload) return FrameVerdict::kRuntIpv6;
  const std::size_t end = kHeader + payload;
  std::uint8_t next = byte(6);
  std::size_t at = kHeader;
  for (std::size_t headers = 0;; ++headers) {
    std::size_t length = 0;
    switch (next) {
      case 0:    // hop-by-hop options
      case 43:   // routing
      case 60:   // destination options
      case 135:  // mobility
        if (at + 2 > end) return FrameVerdict::kRuntIpv6;
        length = (std::size_t{byte(at + 1)} + 1) * 8;
        break;
      case 44:  // fragment
        length = 8;
        break;
      case 51:  // authentication header
        if (at + 2 > end) return FrameVerdict::kRuntIpv6;
        length = (std::size_t{byte(at + 1)} + 2) * 4;
        break;
      default:
        return FrameVerdict::kPass;  // the upper layer (or ESP, or no next header)
    }
    if (headers == kMaxIpv6ExtensionHeaders) return FrameVerdict::kLongIpv6Chain;
    if (at + length > end) return FrameVerdict::kRuntIpv6;
    // A fragment that is not the first carries no more headers to check.
    if (next == 44 && (wire::be16(packet, at + 2) & 0xFFF8) != 0) return FrameVerdict::kPass;
    next = byte(at);
    at += length;
  }
}

}  // namespace detail

// `frame`: destination MAC first, no FCS; at least 14 bytes (drivers drop
// shorter ones). `joined`: the group addresses IPv6 has joined.
constexpr FrameVerdict classify_frame(std::span<const std::byte> frame,
                                      const JoinedGroups& joined = JoinedGroups{}) noexcept {
  constexpr std::size_t kEthHeader = wire::kEthernetHeaderBytes;
  if (frame.size() < kEthHeader) return FrameVerdict::kRuntIpv4;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(frame[i]); };
  const std::size_t payload = frame.size() - kEthHeader;
  const std::uint16_t ethertype = wire::be16(frame, 12);
  bool broadcast_mac = true;
  for (std::size_t i = 0; i < 6; ++i) broadcast_mac = broadcast_mac && byte(i) == 0xFF;
  const bool group_mac = (byte(0) & 1) != 0;
  if (group_mac && !broadcast_mac && !joined.contains(frame.first(6))) {
    return FrameVerdict::kMulticast;
  }
  if (ethertype == wire::kEtherTypeIpv6) return detail::classify_ipv6(frame.subspan(kEthHeader));
  if (group_mac && !broadcast_mac) return FrameVerdict::kMulticast;  // IPv6's groups only
  if (ethertype == wire::kEtherTypeArp) {
    return payload < 28 ? FrameVerdict::kRuntArp : FrameVerdict::kArp;
  }
  if (ethertype != wire::kEtherTypeIpv4)
    return FrameVerdict::kPass;  // lwIP drops what it does not know
  if (payload < 20) return FrameVerdict::kRuntIpv4;
  const std::uint8_t version_ihl = byte(kEthHeader);
  const std::size_t ihl = std::size_t{version_ihl & 0x0Fu} * 4;
  if ((version_ihl >> 4) != 4 || ihl < 20) return FrameVerdict::kBadIpv4Header;
  const std::size_t total = wire::be16(frame, kEthHeader + 2);
  if (payload < ihl || payload < total || total < ihl) return FrameVerdict::kRuntIpv4;
  if ((byte(kEthHeader + 16) & 0xF0) == 0xE0) return FrameVerdict::kMulticast;  // 224.0.0.0/4
  return FrameVerdict::kPass;
}

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_FRAME_FILTER_H_
