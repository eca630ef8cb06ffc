#include "bench/echo/frame.h"

#include <cstring>

#include "kernel/wire/checksum.h"

namespace starling::bench {
namespace {

constexpr std::uint8_t kUdp = 17;

void put16(std::uint8_t* at, std::size_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 8);
  at[1] = static_cast<std::uint8_t>(v);
}

std::uint16_t get16(const std::uint8_t* at) {
  return static_cast<std::uint16_t>((at[0] << 8) | at[1]);
}

}  // namespace

std::uint16_t ipv4_checksum(std::span<const std::uint8_t> header) {
  return wire::internet_checksum(std::as_bytes(header));
}

std::size_t build_udp_frame(const UdpFlow& flow, std::span<const std::byte> payload,
                            std::span<std::uint8_t> out) {
  const std::size_t n = kFrameHeaderBytes + payload.size();
  const std::size_t padded = n < kMinFrameBytes ? kMinFrameBytes : n;
  if (padded > out.size() || 20 + 8 + payload.size() > 0xFFFF) return 0;
  std::uint8_t* f = out.data();
  std::memcpy(f, flow.dst_mac.data(), 6);
  std::memcpy(f + 6, flow.src_mac.data(), 6);
  put16(f + 12, 0x0800);
  std::uint8_t* ip = f + 14;
  std::memset(ip, 0, 28);
  ip[0] = 0x45;  // IPv4, 20-byte header
  put16(ip + 2, 20 + 8 + payload.size());
  ip[6] = 0x40;  // don't fragment
  ip[8] = 64;    // TTL
  ip[9] = kUdp;
  std::memcpy(ip + 12, &flow.src_ip, 4);
  std::memcpy(ip + 16, &flow.dst_ip, 4);
  put16(ip + 10, ipv4_checksum(std::span<const std::uint8_t>(ip, 20)));
  std::uint8_t* udp = ip + 20;
  put16(udp, flow.src_port);
  put16(udp + 2, flow.dst_port);
  put16(udp + 4, 8 + payload.size());
  if (!payload.empty()) std::memcpy(udp + 8, payload.data(), payload.size());
  std::memset(f + n, 0, padded - n);
  return padded;
}

std::optional<std::span<const std::byte>> udp_payload_of(std::span<const std::uint8_t> frame,
                                                         std::uint16_t src_port,
                                                         std::uint16_t dst_port) {
  if (frame.size() < kFrameHeaderBytes || get16(&frame[12]) != 0x0800) return std::nullopt;
  const std::uint8_t* ip = &frame[14];
  const std::size_t ihl = (ip[0] & 0x0Fu) * 4u;
  if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != kUdp || 14 + ihl + 8 > frame.size()) {
    return std::nullopt;
  }
  const std::uint8_t* udp = ip + ihl;
  if (get16(udp) != src_port || get16(udp + 2) != dst_port) return std::nullopt;
  const std::size_t udp_len = get16(udp + 4);
  if (udp_len < 8 || 14 + ihl + udp_len > frame.size()) return std::span<const std::byte>();
  return std::as_bytes(std::span<const std::uint8_t>(udp + 8, udp_len - 8));
}

}  // namespace starling::bench
