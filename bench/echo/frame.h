#ifndef STARLING_BENCH_ECHO_FRAME_H_
#define STARLING_BENCH_ECHO_FRAME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

// Ethernet + IPv4 + UDP frames built and read by hand, for the raw
// transport (a layer-2 reflector swaps MACs and nothing else, so its replies
// are frames no socket of ours would receive).
namespace starling::bench {

using Mac = std::array<std::uint8_t, 6>;

struct UdpFlow {
  Mac src_mac{};
  Mac dst_mac{};
  std::uint32_t src_ip = 0;  // network byte order, as inet_pton writes it
  std::uint32_t dst_ip = 0;
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
};

inline constexpr std::size_t kFrameHeaderBytes = 14 + 20 + 8;
inline constexpr std::size_t kMinFrameBytes = 60;  // Ethernet minimum, no FCS

// The IPv4 header checksum (RFC 791) of `header`, its checksum field zero.
std::uint16_t ipv4_checksum(std::span<const std::uint8_t> header);

// Writes one frame (padded to kMinFrameBytes) into `out`; its length, or 0
// if it does not fit. UDP checksum 0: none, allowed over IPv4.
std::size_t build_udp_frame(const UdpFlow& flow, std::span<const std::byte> payload,
                            std::span<std::uint8_t> out);

// A frame of ours coming back: IPv4, UDP, src_port and dst_port as sent (a
// reflector changes no port). Frames of other flows: nullopt. A frame of
// ours cut short (UDP length beyond the frame): an empty payload, which
// the caller judges corrupted.
std::optional<std::span<const std::byte>> udp_payload_of(std::span<const std::uint8_t> frame,
                                                         std::uint16_t src_port,
                                                         std::uint16_t dst_port);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_FRAME_H_
