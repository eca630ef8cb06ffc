#ifndef STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_
#define STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

// Transmit checksum offload of the "partial" kind (virtio-net's
// VIRTIO_NET_F_CSUM, virtio 1.1 §5.1.6.2; Linux's CHECKSUM_PARTIAL): the
// device sums the bytes from `start` to the end of the packet and stores the
// complement at start + offset, so the driver must leave the pseudo-header's
// sum (not complemented) in that field first. The stack (lwIP, its per-netif
// GEN_UDP/GEN_TCP off) leaves the field 0; this fills it in the driver's own
// copy of the frame.
//
// Only unfragmented IPv4 UDP and TCP get it, and IPv6 UDP and TCP with no
// extension header: an IP fragment's transport checksum covers bytes in
// other frames (net/udp has lwIP compute an IPv6 datagram's checksum itself
// when it will be fragmented, as IPv6 forbids 0). A UDP datagram lwIP fragments thus
// leaves with checksum 0, "no checksum", which IPv4 allows (RFC 768); TCP is
// never fragmented by lwIP (segments fit the MSS).
namespace starling::nic {

struct PartialChecksum {
  std::uint16_t start = 0;   // the transport header's offset in the frame
  std::uint16_t offset = 0;  // the checksum field's offset from start
};

// Whether `frame` (from the destination MAC, no FCS) is one fragment of an
// IPv4 datagram: MF set or a fragment offset. Its transport checksum covers
// bytes in other frames, so no engine may compute one over this frame: a
// DWMAC asked for CIC = 11 would overwrite the first fragment's UDP checksum
// with a sum over that fragment alone, and bytes 6 and 7 of every later
// fragment's payload (the UDP checksum's place, had it a UDP header).
inline bool is_ipv4_fragment(std::span<const std::byte> frame) {
  constexpr std::size_t kEth = 14;
  if (frame.size() < kEth + 20) return false;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(frame[i]); };
  const auto be16 = [&](std::size_t i) { return (byte(i) << 8) | byte(i + 1); };
  return be16(12) == 0x0800 && (byte(kEth) >> 4) == 4 && (be16(kEth + 6) & 0x3FFF) != 0;
}

namespace detail {

// The checksum field's offset in a UDP (17) or TCP (6) header; 0 otherwise.
inline std::uint16_t checksum_field(std::uint32_t protocol) {
  return protocol == 17 ? 6 : protocol == 6 ? 16 : 0;
}

inline void store_pseudo_sum(std::span<std::byte> frame, std::size_t at, std::uint32_t sum) {
  sum = (sum & 0xFFFF) + (sum >> 16);
  sum = (sum & 0xFFFF) + (sum >> 16);
  frame[at] = static_cast<std::byte>(sum >> 8);
  frame[at + 1] = static_cast<std::byte>(sum);
}

// IPv6 (RFC 8200 section 8.1): UDP or TCP right after the fixed header;
// with extension headers (a fragment among them) nullopt.
inline std::optional<PartialChecksum> prepare_ipv6(std::span<std::byte> frame) {
  constexpr std::size_t kEth = 14;
  constexpr std::size_t kHeader = 40;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(frame[i]); };
  const auto be16 = [&](std::size_t i) { return (byte(i) << 8) | byte(i + 1); };
  if (frame.size() < kEth + kHeader || (byte(kEth) >> 4) != 6) return std::nullopt;
  const std::size_t length = be16(kEth + 4);
  const std::uint32_t protocol = byte(kEth + 6);
  const std::uint16_t field = checksum_field(protocol);
  if (field == 0 || length < field + 2u || kEth + kHeader + length > frame.size()) {
    return std::nullopt;
  }
  // Pseudo-header: source, destination, upper-layer length, next header.
  std::uint32_t sum = static_cast<std::uint32_t>(length) + protocol;
  for (std::size_t i = kEth + 8; i < kEth + kHeader; i += 2) sum += be16(i);
  const std::size_t start = kEth + kHeader;
  store_pseudo_sum(frame, start + field, sum);
  return PartialChecksum{.start = static_cast<std::uint16_t>(start), .offset = field};
}

}  // namespace detail

// Whether `frame` is an IPv6 fragment (a fragment header right after the
// fixed header, where lwIP puts it): no engine may sum its payload either.
inline bool is_ipv6_fragment(std::span<const std::byte> frame) {
  constexpr std::size_t kEth = 14;
  if (frame.size() < kEth + 40) return false;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(frame[i]); };
  return byte(12) == 0x86 && byte(13) == 0xDD && (byte(kEth) >> 4) == 6 && byte(kEth + 6) == 44;
}

// `frame` starts with the destination MAC, no FCS. nullopt (frame
// untouched) for anything but a well-formed unfragmented IPv4 UDP/TCP
// frame or an IPv6 one without extension headers.
inline std::optional<PartialChecksum> prepare_partial_checksum(std::span<std::byte> frame) {
  constexpr std::size_t kEth = 14;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(frame[i]); };
  const auto be16 = [&](std::size_t i) { return (byte(i) << 8) | byte(i + 1); };
  if (frame.size() >= kEth && be16(12) == 0x86DD) return detail::prepare_ipv6(frame);
  if (frame.size() < kEth + 20 || be16(12) != 0x0800) return std::nullopt;
  const std::size_t ihl = (byte(kEth) & 0x0F) * 4;
  const std::size_t total = be16(kEth + 2);
  if ((byte(kEth) >> 4) != 4 || ihl < 20 || total < ihl || kEth + total > frame.size()) {
    return std::nullopt;
  }
  if (is_ipv4_fragment(frame)) return std::nullopt;
  const std::uint32_t protocol = byte(kEth + 9);
  const std::uint16_t field = detail::checksum_field(protocol);
  const std::size_t start = kEth + ihl;
  const std::size_t length = total - ihl;
  if (field == 0 || length < field + 2u) return std::nullopt;
  // Pseudo-header (RFC 768, RFC 793): source, destination, protocol, length.
  const std::uint32_t sum = be16(kEth + 12) + be16(kEth + 14) + be16(kEth + 16) + be16(kEth + 18) +
                            protocol + static_cast<std::uint32_t>(length);
  detail::store_pseudo_sum(frame, start + field, sum);
  return PartialChecksum{.start = static_cast<std::uint16_t>(start), .offset = field};
}

}  // namespace starling::nic

#endif  // STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_
