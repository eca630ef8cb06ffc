#ifndef STARLING_NET_NETIF_TEST_FRAMES_H_
#define STARLING_NET_NETIF_TEST_FRAMES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

// Test support: Ethernet frames built by hand for a netif over FakeNic
// (whose MAC is kOurMac) at kQemuUserDefault's address, from one peer.
namespace starling::net::testing {

using Bytes = std::vector<std::byte>;

inline constexpr std::uint8_t kPeerMac[6] = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x02};
inline constexpr std::uint8_t kOurMac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
inline constexpr std::uint32_t kPeerIp = 0x0A000202;
inline constexpr std::uint32_t kOurIp = 0x0A00020F;

inline void put16(Bytes& b, std::size_t at, std::uint16_t v) {
  b[at] = std::byte(v >> 8);
  b[at + 1] = std::byte(v & 0xFF);
}
inline void put32(Bytes& b, std::size_t at, std::uint32_t v) {
  put16(b, at, static_cast<std::uint16_t>(v >> 16));
  put16(b, at + 2, static_cast<std::uint16_t>(v));
}
inline std::uint16_t get16(const Bytes& b, std::size_t at) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[at]) << 8 |
                                    std::to_integer<unsigned>(b[at + 1]));
}
inline void ethernet_header(Bytes& b, std::uint16_t type) {
  for (int i = 0; i < 6; ++i) b[i] = std::byte(kOurMac[i]), b[6 + i] = std::byte(kPeerMac[i]);
  put16(b, 12, type);
}

// IPv4/UDP from the peer to us, no UDP checksum (allowed on IPv4).
inline Bytes udp_frame(std::uint16_t src_port, std::uint16_t dst_port, const Bytes& payload) {
  Bytes b(14 + 20 + 8 + payload.size());
  ethernet_header(b, 0x0800);
  b[14] = std::byte{0x45};
  put16(b, 16, static_cast<std::uint16_t>(20 + 8 + payload.size()));
  b[22] = std::byte{64};
  b[23] = std::byte{17};
  put32(b, 26, kPeerIp);
  put32(b, 30, kOurIp);
  std::uint32_t sum = 0;
  for (std::size_t i = 14; i < 34; i += 2) sum += get16(b, i);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  put16(b, 24, static_cast<std::uint16_t>(~sum));
  put16(b, 34, src_port);
  put16(b, 36, dst_port);
  put16(b, 38, static_cast<std::uint16_t>(8 + payload.size()));
  put16(b, 40, 0);
  if (!payload.empty()) std::memcpy(b.data() + 42, payload.data(), payload.size());
  return b;
}

// IPv4/TCP from the peer to us (checksums right: lwIP checks them). `flags`
// as in the header (FIN 1, SYN 2, RST 4, PSH 8, ACK 16); an MSS option when
// mss != 0.
inline Bytes tcp_frame(std::uint16_t src_port, std::uint16_t dst_port, std::uint32_t seq,
                       std::uint32_t ack, std::uint8_t flags, const Bytes& payload = {},
                       std::uint16_t mss = 0, std::uint16_t window = 65535) {
  const std::size_t header = mss != 0 ? 24 : 20;
  Bytes b(14 + 20 + header + payload.size());
  ethernet_header(b, 0x0800);
  b[14] = std::byte{0x45};
  put16(b, 16, static_cast<std::uint16_t>(20 + header + payload.size()));
  b[22] = std::byte{64};
  b[23] = std::byte{6};
  put32(b, 26, kPeerIp);
  put32(b, 30, kOurIp);
  auto fold = [](std::uint32_t sum) {
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<std::uint16_t>(~sum);
  };
  std::uint32_t sum = 0;
  for (std::size_t i = 14; i < 34; i += 2) sum += get16(b, i);
  put16(b, 24, fold(sum));
  const std::size_t t = 34;
  put16(b, t, src_port);
  put16(b, t + 2, dst_port);
  put32(b, t + 4, seq);
  put32(b, t + 8, ack);
  b[t + 12] = std::byte(static_cast<std::uint8_t>((header / 4) << 4));
  b[t + 13] = std::byte{flags};
  put16(b, t + 14, window);
  if (mss != 0) {
    b[t + 20] = std::byte{2};
    b[t + 21] = std::byte{4};
    put16(b, t + 22, mss);
  }
  if (!payload.empty()) std::memcpy(b.data() + t + header, payload.data(), payload.size());
  const std::size_t tcp_len = header + payload.size();
  sum = (kPeerIp >> 16) + (kPeerIp & 0xFFFF) + (kOurIp >> 16) + (kOurIp & 0xFFFF) + 6 +
        static_cast<std::uint32_t>(tcp_len);
  for (std::size_t i = 0; i + 1 < tcp_len; i += 2) sum += get16(b, t + i);
  if (tcp_len % 2 != 0) sum += std::to_integer<std::uint32_t>(b[t + tcp_len - 1]) << 8;
  put16(b, t + 16, fold(sum));
  return b;
}

inline std::uint32_t get32(const Bytes& b, std::size_t at) {
  return (std::uint32_t{get16(b, at)} << 16) | get16(b, at + 2);
}

// The peer's answer to our ARP request: its MAC for kPeerIp.
inline Bytes arp_reply() {
  Bytes b(60);
  ethernet_header(b, 0x0806);
  put16(b, 14, 1);
  put16(b, 16, 0x0800);
  b[18] = std::byte{6};
  b[19] = std::byte{4};
  put16(b, 20, 2);
  for (int i = 0; i < 6; ++i) b[22 + i] = std::byte(kPeerMac[i]), b[32 + i] = std::byte(kOurMac[i]);
  put32(b, 28, kPeerIp);
  put32(b, 38, kOurIp);
  return b;
}

inline Bytes pattern(std::size_t n, std::uint32_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = std::byte(static_cast<std::uint8_t>(i * 31 + seed));
  return b;
}

}  // namespace starling::net::testing

#endif  // STARLING_NET_NETIF_TEST_FRAMES_H_
