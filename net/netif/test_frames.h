#ifndef STARLING_NET_NETIF_TEST_FRAMES_H_
#define STARLING_NET_NETIF_TEST_FRAMES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel/test_frames/frames.h"

// Test support: Ethernet frames built by hand for a netif over FakeNic
// (whose MAC is kOurMac) at kQemuUserDefault's address, from one peer. The
// headers and checksums are //kernel/test_frames:frames'.
namespace starling::net::testing {

using test_frames::Bytes;
using test_frames::get16;
using test_frames::get32;
using test_frames::put16;
using test_frames::put32;

inline constexpr test_frames::Mac kPeerMac = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x02};
inline constexpr test_frames::Mac kOurMac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
inline constexpr std::uint32_t kPeerIp = 0x0A000202;
inline constexpr std::uint32_t kOurIp = 0x0A00020F;

// Most frames here go from the peer (the gateway, kPeerIp) to us; the
// *_from builders take another host on the link.
inline constexpr test_frames::Ethernet kPeerToUs{.dst = kOurMac, .src = kPeerMac};
inline constexpr test_frames::Ipv4 kPeerToUsIp{.src = kPeerIp, .dst = kOurIp};

inline void ethernet_header(Bytes& b, std::uint16_t type) {
  test_frames::write_ethernet(b, kPeerToUs, type);
}

// IPv4/UDP from the peer to us, no UDP checksum (allowed on IPv4).
inline Bytes udp_frame(std::uint16_t src_port, std::uint16_t dst_port, const Bytes& payload) {
  return test_frames::udp_frame(kPeerToUs, kPeerToUsIp,
                                {.src_port = src_port, .dst_port = dst_port}, payload);
}

// IPv4/TCP from a host on the link to us (checksums right: lwIP checks
// them). `flags` as in the header (FIN 1, SYN 2, RST 4, PSH 8, ACK 16); an
// MSS option when mss != 0.
inline Bytes tcp_frame_from(const test_frames::Ethernet& eth, const test_frames::Ipv4& ip,
                            std::uint16_t src_port, std::uint16_t dst_port, std::uint32_t seq,
                            std::uint32_t ack, std::uint8_t flags, const Bytes& payload = {},
                            std::uint16_t mss = 0, std::uint16_t window = 65535,
                            const Bytes& options = {}) {
  // More options after the MSS one, padded with NOPs to a 4-byte multiple.
  const std::size_t more = (options.size() + 3) / 4 * 4;
  const std::size_t header = (mss != 0 ? 24 : 20) + more;
  Bytes segment(header + payload.size());
  put16(segment, 0, src_port);
  put16(segment, 2, dst_port);
  put32(segment, 4, seq);
  put32(segment, 8, ack);
  segment[12] = std::byte(static_cast<std::uint8_t>((header / 4) << 4));
  segment[13] = std::byte{flags};
  put16(segment, 14, window);
  if (mss != 0) {
    segment[20] = std::byte{2};
    segment[21] = std::byte{4};
    put16(segment, 22, mss);
  }
  const std::size_t at = mss != 0 ? 24 : 20;
  for (std::size_t i = 0; i < more; ++i) {
    segment[at + i] = i < options.size() ? options[i] : std::byte{1};  // NOP
  }
  if (!payload.empty()) std::memcpy(segment.data() + header, payload.data(), payload.size());
  put16(segment, 16, test_frames::transport_checksum(ip, test_frames::kProtocolTcp, segment));
  return test_frames::ipv4_frame(eth, ip, test_frames::kProtocolTcp, segment);
}

// IPv4/TCP from the peer (the gateway, kPeerIp) to us.
inline Bytes tcp_frame(std::uint16_t src_port, std::uint16_t dst_port, std::uint32_t seq,
                       std::uint32_t ack, std::uint8_t flags, const Bytes& payload = {},
                       std::uint16_t mss = 0, std::uint16_t window = 65535,
                       const Bytes& options = {}) {
  return tcp_frame_from(kPeerToUs, kPeerToUsIp, src_port, dst_port, seq, ack, flags, payload, mss,
                        window, options);
}

// A host's answer to our ARP request: `mac` for `ip`.
inline Bytes arp_reply_from(const test_frames::Mac& mac, std::uint32_t ip) {
  Bytes b(60);
  ethernet_header(b, 0x0806);
  for (int i = 0; i < 6; ++i) b[6 + i] = std::byte(mac[i]);
  put16(b, 14, 1);
  put16(b, 16, 0x0800);
  b[18] = std::byte{6};
  b[19] = std::byte{4};
  put16(b, 20, 2);
  for (int i = 0; i < 6; ++i) b[22 + i] = std::byte(mac[i]), b[32 + i] = std::byte(kOurMac[i]);
  put32(b, 28, ip);
  put32(b, 38, kOurIp);
  return b;
}

// The peer's answer to our ARP request: its MAC for kPeerIp.
inline Bytes arp_reply() {
  return arp_reply_from(kPeerMac, kPeerIp);
}

inline Bytes pattern(std::size_t n, std::uint32_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = std::byte(static_cast<std::uint8_t>(i * 31 + seed));
  return b;
}

}  // namespace starling::net::testing

#endif  // STARLING_NET_NETIF_TEST_FRAMES_H_
