#ifndef STARLING_KERNEL_WIRE_FRAME_H_
#define STARLING_KERNEL_WIRE_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/wire/byte_order.h"

// Ethernet and IP layout facts a driver and the stack both need, once.
namespace starling::wire {

inline constexpr std::size_t kEthernetHeaderBytes = 14;  // two MACs and the EtherType
inline constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr std::uint16_t kEtherTypeArp = 0x0806;
inline constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
inline constexpr std::size_t kIpv4HeaderBytes = 20;  // without options
inline constexpr std::size_t kIpv6HeaderBytes = 40;  // the fixed header

// Whether `frame` (from the destination MAC, no FCS) is one fragment of an
// IPv4 datagram: MF set or a fragment offset. Its transport checksum covers
// bytes in other frames, so nothing may check or compute one over this
// frame alone: a DWMAC asked for a full checksum (CIC = 11) would overwrite
// the first fragment's UDP checksum with a sum over that fragment, and bytes
// 6 and 7 of every later fragment's payload; a receive engine's "checksum
// good" on a fragment says nothing about the datagram.
// (The fragment field first: it is the test that fails for almost every
// frame, on the per-packet path of the netif and the drivers.)
constexpr bool is_ipv4_fragment(std::span<const std::byte> frame) noexcept {
  constexpr std::size_t kEth = kEthernetHeaderBytes;
  if (frame.size() < kEth + kIpv4HeaderBytes || (be16(frame, kEth + 6) & 0x3FFF) == 0) return false;
  return be16(frame, 12) == kEtherTypeIpv4 && (std::to_integer<unsigned>(frame[kEth]) >> 4) == 4;
}

}  // namespace starling::wire

#endif  // STARLING_KERNEL_WIRE_FRAME_H_
