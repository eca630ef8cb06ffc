#ifndef STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_
#define STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "kernel/wire/byte_order.h"
#include "kernel/wire/checksum.h"
#include "kernel/wire/frame.h"

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

// (An IPv4 fragment gets none: wire::is_ipv4_fragment says why.)

namespace detail {

inline std::uint32_t byte_at(std::span<const std::byte> frame, std::size_t i) {
  return std::to_integer<std::uint32_t>(frame[i]);
}

// The checksum field's offset in a UDP (17) or TCP (6) header; 0 otherwise.
inline std::uint16_t checksum_field(std::uint32_t protocol) {
  return protocol == 17 ? 6 : protocol == 6 ? 16 : 0;
}

// IPv6 (RFC 8200 section 8.1): UDP or TCP right after the fixed header;
// with extension headers (a fragment among them) nullopt.
inline std::optional<PartialChecksum> prepare_ipv6(std::span<std::byte> frame) {
  constexpr std::size_t kEth = wire::kEthernetHeaderBytes;
  constexpr std::size_t kHeader = wire::kIpv6HeaderBytes;
  if (frame.size() < kEth + kHeader || (byte_at(frame, kEth) >> 4) != 6) return std::nullopt;
  const std::size_t length = wire::be16(frame, kEth + 4);
  const std::uint32_t protocol = byte_at(frame, kEth + 6);
  const std::uint16_t field = checksum_field(protocol);
  if (field == 0 || length < field + 2u || kEth + kHeader + length > frame.size()) {
    return std::nullopt;
  }
  // Pseudo-header: source, destination, upper-layer length, next header.
  const std::uint32_t sum = wire::ipv6_pseudo_header_sum(
      frame.subspan(kEth + 8).first<16>(), frame.subspan(kEth + 24).first<16>(),
      static_cast<std::uint8_t>(protocol), length);
  const std::size_t start = kEth + kHeader;
  wire::put_be16(frame, start + field, wire::fold(sum));
  return PartialChecksum{.start = static_cast<std::uint16_t>(start), .offset = field};
}

}  // namespace detail

// Whether `frame` is an IPv6 fragment (a fragment header right after the
// fixed header, where lwIP puts it): no engine may sum its payload either.
inline bool is_ipv6_fragment(std::span<const std::byte> frame) {
  constexpr std::size_t kEth = wire::kEthernetHeaderBytes;
  if (frame.size() < kEth + wire::kIpv6HeaderBytes) return false;
  return wire::be16(frame, 12) == wire::kEtherTypeIpv6 &&
         (detail::byte_at(frame, kEth) >> 4) == 6 && detail::byte_at(frame, kEth + 6) == 44;
}

// `frame` starts with the destination MAC, no FCS. nullopt (frame
// untouched) for anything but a well-formed unfragmented IPv4 UDP/TCP
// frame or an IPv6 one without extension headers.
inline std::optional<PartialChecksum> prepare_partial_checksum(std::span<std::byte> frame) {
  constexpr std::size_t kEth = wire::kEthernetHeaderBytes;
  if (frame.size() >= kEth && wire::be16(frame, 12) == wire::kEtherTypeIpv6) {
    return detail::prepare_ipv6(frame);
  }
  if (frame.size() < kEth + wire::kIpv4HeaderBytes ||
      wire::be16(frame, 12) != wire::kEtherTypeIpv4) {
    return std::nullopt;
  }
  const std::size_t ihl = (detail::byte_at(frame, kEth) & 0x0F) * 4;
  const std::size_t total = wire::be16(frame, kEth + 2);
  if ((detail::byte_at(frame, kEth) >> 4) != 4 || ihl < 20 || total < ihl ||
      kEth + total > frame.size()) {
    return std::nullopt;
  }
  if ((wire::be16(frame, kEth + 6) & 0x3FFF) != 0) return std::nullopt;  // a fragment
  const std::uint32_t protocol = detail::byte_at(frame, kEth + 9);
  const std::uint16_t field = detail::checksum_field(protocol);
  const std::size_t start = kEth + ihl;
  const std::size_t length = total - ihl;
  if (field == 0 || length < field + 2u) return std::nullopt;
  // Pseudo-header (RFC 768, RFC 793): source, destination, protocol, length.
  // (Summed as four 16-bit words straight from the frame: cheaper per
  // packet than wire::ipv4_pseudo_header_sum's two 32-bit addresses.)
  const std::uint32_t sum = wire::be16(frame, kEth + 12) + wire::be16(frame, kEth + 14) +
                            wire::be16(frame, kEth + 16) + wire::be16(frame, kEth + 18) + protocol +
                            static_cast<std::uint32_t>(length);
  wire::put_be16(frame, start + field, wire::fold(sum));
  return PartialChecksum{.start = static_cast<std::uint16_t>(start), .offset = field};
}

}  // namespace starling::nic

#endif  // STARLING_DRIVERS_NIC_PARTIAL_CHECKSUM_H_
