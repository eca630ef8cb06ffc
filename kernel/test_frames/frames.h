#ifndef STARLING_KERNEL_TEST_FRAMES_FRAMES_H_
#define STARLING_KERNEL_TEST_FRAMES_FRAMES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "kernel/wire/byte_order.h"
#include "kernel/wire/checksum.h"
#include "kernel/wire/frame.h"

// Test support (//kernel/test_frames:frames, testonly): Ethernet II, IPv4 and UDP
// frames built by hand, byte for byte. Under kernel/ so that the tests of
// the drivers and device models (which may not depend on net/) and of the
// network stack share one builder. Fields are big-endian; IPv4 headers have
// no options (IHL 5), DF clear, TOS 0; frames carry no FCS.
namespace starling::test_frames {

using Bytes = std::vector<std::byte>;
using Mac = std::array<std::uint8_t, 6>;

using wire::kEthernetHeaderBytes;
using wire::kEtherTypeIpv4;
using wire::kIpv4HeaderBytes;
inline constexpr std::size_t kUdpHeaderBytes = 8;
inline constexpr std::uint8_t kProtocolTcp = 6;
inline constexpr std::uint8_t kProtocolUdp = 17;

// Byte order and checksums are kernel/wire's (its own test anchors them to
// RFC 1071's vectors), under the names these tests have always used.
inline void put16(std::span<std::byte> b, std::size_t at, std::uint16_t v) {
  wire::put_be16(b, at, v);
}
inline void put32(std::span<std::byte> b, std::size_t at, std::uint32_t v) {
  wire::put_be32(b, at, v);
}
inline std::uint16_t get16(std::span<const std::byte> b, std::size_t at) {
  return wire::be16(b, at);
}
inline std::uint32_t get32(std::span<const std::byte> b, std::size_t at) {
  return wire::be32(b, at);
}

// RFC 1071: `bytes` as 16-bit words (an odd last byte padded with zero)
// added to `acc`, the carries folded back in. At most 0xFFFF; 0xFFFF over a
// header or segment whose checksum field is right.
inline std::uint32_t ones_complement_sum(std::span<const std::byte> bytes, std::uint32_t acc = 0) {
  return wire::ones_complement_sum(bytes, acc);
}

// What goes in a checksum field: the complement of the sum, computed with
// the field itself 0.
inline std::uint16_t internet_checksum(std::span<const std::byte> bytes, std::uint32_t acc = 0) {
  return wire::internet_checksum(bytes, acc);
}

// The IPv4 pseudo-header that UDP and TCP checksums cover, not yet folded.
inline std::uint32_t pseudo_header_sum(std::uint32_t src, std::uint32_t dst, std::uint8_t protocol,
                                       std::size_t l4_bytes) {
  return wire::ipv4_pseudo_header_sum(src, dst, protocol, l4_bytes);
}

// The IPv6 pseudo-header (RFC 8200 section 8.1), not yet folded.
inline std::uint32_t ipv6_pseudo_header_sum(std::span<const std::byte, 16> src,
                                            std::span<const std::byte, 16> dst, std::uint8_t next,
                                            std::size_t upper_bytes) {
  return wire::ipv6_pseudo_header_sum(src, dst, next, upper_bytes);
}

struct Ethernet {
  Mac dst{};
  Mac src{};
};

// The 14-byte Ethernet II header at the front of `frame`.
inline void write_ethernet(std::span<std::byte> frame, const Ethernet& eth, std::uint16_t type) {
  for (std::size_t i = 0; i < 6; ++i) {
    frame[i] = std::byte{eth.dst[i]};
    frame[6 + i] = std::byte{eth.src[i]};
  }
  put16(frame, 12, type);
}

struct Ipv4 {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint16_t id = 0;
  std::uint8_t ttl = 64;
  // false: the header checksum is left 0, for a MAC's checksum offload.
  bool checksum = true;
};

// A UDP or TCP checksum for `segment` (its own checksum field 0) from ip.src
// to ip.dst.
inline std::uint16_t transport_checksum(const Ipv4& ip, std::uint8_t protocol,
                                        std::span<const std::byte> segment) {
  return internet_checksum(segment, pseudo_header_sum(ip.src, ip.dst, protocol, segment.size()));
}

// The 20-byte IPv4 header at the front of `header`, for `l4_bytes` of
// `protocol` after it. Every byte written, so `header` may hold anything.
inline void write_ipv4_header(std::span<std::byte> header, const Ipv4& ip, std::uint8_t protocol,
                              std::size_t l4_bytes) {
  header[0] = std::byte{0x45};  // version 4, IHL 5
  header[1] = std::byte{0};
  put16(header, 2, static_cast<std::uint16_t>(kIpv4HeaderBytes + l4_bytes));
  put16(header, 4, ip.id);
  put16(header, 6, 0);  // flags, fragment offset
  header[8] = std::byte{ip.ttl};
  header[9] = std::byte{protocol};
  put16(header, 10, 0);
  put32(header, 12, ip.src);
  put32(header, 16, ip.dst);
  if (ip.checksum) put16(header, 10, internet_checksum(header.first(kIpv4HeaderBytes)));
}

// In place, over a frame whose Ethernet addresses are written and whose
// bytes after the IPv4 header are the `protocol` segment: the EtherType and
// the IPv4 header.
inline void write_ipv4_headers(std::span<std::byte> frame, const Ipv4& ip, std::uint8_t protocol) {
  constexpr std::size_t kL4 = kEthernetHeaderBytes + kIpv4HeaderBytes;
  put16(frame, 12, kEtherTypeIpv4);
  write_ipv4_header(frame.subspan(kEthernetHeaderBytes), ip, protocol, frame.size() - kL4);
}

struct Udp {
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  // false: 0, "no checksum" (allowed on IPv4).
  bool checksum = false;
};

// In place, over a frame whose Ethernet addresses are written and whose
// bytes after the UDP header are the payload: the EtherType, the IPv4
// header and the UDP header.
inline void write_udp_headers(std::span<std::byte> frame, const Ipv4& ip, const Udp& udp) {
  write_ipv4_headers(frame, ip, kProtocolUdp);
  const std::span<std::byte> d = frame.subspan(kEthernetHeaderBytes + kIpv4HeaderBytes);
  put16(d, 0, udp.src_port);
  put16(d, 2, udp.dst_port);
  put16(d, 4, static_cast<std::uint16_t>(d.size()));
  put16(d, 6, 0);
  if (udp.checksum) {
    const std::uint16_t sum = transport_checksum(ip, kProtocolUdp, d);
    put16(d, 6, sum == 0 ? 0xFFFF : sum);  // RFC 768: a computed 0 is sent as all ones
  }
}

// Ethernet and IPv4 headers, then `l4` (a segment of `protocol`) as it is.
inline Bytes ipv4_frame(const Ethernet& eth, const Ipv4& ip, std::uint8_t protocol,
                        std::span<const std::byte> l4) {
  constexpr std::size_t kL4 = kEthernetHeaderBytes + kIpv4HeaderBytes;
  Bytes f(kL4 + l4.size());
  write_ethernet(f, eth, kEtherTypeIpv4);
  if (!l4.empty()) std::memcpy(f.data() + kL4, l4.data(), l4.size());
  write_ipv4_headers(f, ip, protocol);
  return f;
}

// Ethernet, IPv4 and UDP headers, then `payload`.
inline Bytes udp_frame(const Ethernet& eth, const Ipv4& ip, const Udp& udp,
                       std::span<const std::byte> payload) {
  constexpr std::size_t kPayload = kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes;
  Bytes f(kPayload + payload.size());
  write_ethernet(f, eth, kEtherTypeIpv4);
  if (!payload.empty()) std::memcpy(f.data() + kPayload, payload.data(), payload.size());
  write_udp_headers(f, ip, udp);
  return f;
}

}  // namespace starling::test_frames

#endif  // STARLING_KERNEL_TEST_FRAMES_FRAMES_H_
