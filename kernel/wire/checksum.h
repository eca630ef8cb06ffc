#ifndef STARLING_KERNEL_WIRE_CHECKSUM_H_
#define STARLING_KERNEL_WIRE_CHECKSUM_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "kernel/wire/byte_order.h"

// The Internet checksum (RFC 1071), written once: the fold, a plain sum for
// headers and tests, and the pseudo-headers UDP and TCP cover. lwIP's hot
// path sums 64 bits at a time (net/lwip/checksum.cc) and folds with fold().
// The device models sum for themselves on purpose (byte_order.h says why).
namespace starling::wire {

// A one's complement sum kept in up to 64 bits, folded to 16 with the
// carries added back each time (RFC 1071 section 2(C)). Not complemented.
constexpr std::uint16_t fold(std::uint64_t sum) noexcept {
  sum = (sum & 0xFFFF'FFFF) + (sum >> 32);
  sum = (sum & 0xFFFF'FFFF) + (sum >> 32);
  sum = (sum & 0xFFFF) + (sum >> 16);
  sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

// `bytes` as big-endian 16-bit words (an odd last byte padded with zero)
// added to `acc`, folded. 0xFFFF over a header or segment whose checksum
// field is right.
constexpr std::uint16_t ones_complement_sum(std::span<const std::byte> bytes,
                                            std::uint64_t acc = 0) noexcept {
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2) acc += be16(bytes, i);
  if (bytes.size() % 2 != 0) acc += std::uint64_t{std::to_integer<std::uint8_t>(bytes.back())} << 8;
  return fold(acc);
}

// What goes in a checksum field: the complement of the sum, computed with
// the field itself 0.
constexpr std::uint16_t internet_checksum(std::span<const std::byte> bytes,
                                          std::uint64_t acc = 0) noexcept {
  return static_cast<std::uint16_t>(~ones_complement_sum(bytes, acc));
}

// The IPv4 pseudo-header UDP and TCP checksums cover (addresses in host
// order), not folded.
constexpr std::uint32_t ipv4_pseudo_header_sum(std::uint32_t src, std::uint32_t dst,
                                               std::uint8_t protocol,
                                               std::size_t l4_bytes) noexcept {
  return (src >> 16) + (src & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF) + protocol +
         static_cast<std::uint32_t>(l4_bytes);
}

// The IPv6 pseudo-header (RFC 8200 section 8.1) that UDP, TCP and ICMPv6
// checksums cover: both addresses (network order), the upper-layer length
// and the next header. A sum to fold(), not complemented; it may come
// partly folded.
//
// At run time, when both addresses are 2-byte aligned (a frame's are: they
// sit 22 and 38 bytes into it), the addresses' 16-bit words are loaded as
// the CPU's own and the folded sum's bytes swapped back (RFC 1071 2(B):
// byte order is a matter of where the sum is read): 16 loads instead of 32
// and no shifts, for every IPv6 UDP and TCP segment sent with a partial
// checksum (drivers/nic/partial_checksum.h; the gate's figures in
// docs/benchmarks.md).
constexpr std::uint32_t ipv6_pseudo_header_sum(std::span<const std::byte, 16> src,
                                               std::span<const std::byte, 16> dst,
                                               std::uint8_t next,
                                               std::size_t upper_bytes) noexcept {
  std::uint32_t sum = next + static_cast<std::uint32_t>(upper_bytes);
  if (!std::is_constant_evaluated() && ((reinterpret_cast<std::uintptr_t>(src.data()) |
                                         reinterpret_cast<std::uintptr_t>(dst.data())) &
                                        1) == 0) {
    typedef std::uint16_t __attribute__((may_alias)) Half;  // any object's bytes
    const auto* s = static_cast<const Half*>(__builtin_assume_aligned(src.data(), 2));
    const auto* d = static_cast<const Half*>(__builtin_assume_aligned(dst.data(), 2));
    std::uint64_t native = 0;
    for (std::size_t i = 0; i < 8; ++i) native += std::uint64_t{s[i]} + d[i];
    const std::uint16_t folded = fold(native);
    if constexpr (std::endian::native == std::endian::little) {
      return sum + static_cast<std::uint16_t>(folded << 8 | folded >> 8);
    } else {
      return sum + folded;
    }
  }
  for (std::size_t i = 0; i < 16; i += 2) sum += be16(src, i) + be16(dst, i);
  return sum;
}

}  // namespace starling::wire

#endif  // STARLING_KERNEL_WIRE_CHECKSUM_H_
