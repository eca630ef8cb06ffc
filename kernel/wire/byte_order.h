#ifndef STARLING_KERNEL_WIRE_BYTE_ORDER_H_
#define STARLING_KERNEL_WIRE_BYTE_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <span>

// Network byte order (big-endian) fields read from and written into frames,
// one byte at a time: frames are not aligned for wider loads, and the
// compiler turns these into the best loads it may. The one place for them
// (drivers, net, test frame builders); the device models keep their own on
// purpose, so a mistake here cannot hide in a model that shares it.
namespace starling::wire {

constexpr std::uint16_t be16(std::span<const std::byte> b, std::size_t at) noexcept {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(b[at]) << 8 |
                                    std::to_integer<unsigned>(b[at + 1]));
}

constexpr std::uint32_t be32(std::span<const std::byte> b, std::size_t at) noexcept {
  return (std::uint32_t{be16(b, at)} << 16) | be16(b, at + 2);
}

constexpr void put_be16(std::span<std::byte> b, std::size_t at, std::uint16_t v) noexcept {
  b[at] = std::byte(v >> 8);
  b[at + 1] = std::byte(v & 0xFF);
}

constexpr void put_be32(std::span<std::byte> b, std::size_t at, std::uint32_t v) noexcept {
  put_be16(b, at, static_cast<std::uint16_t>(v >> 16));
  put_be16(b, at + 2, static_cast<std::uint16_t>(v));
}

}  // namespace starling::wire

#endif  // STARLING_KERNEL_WIRE_BYTE_ORDER_H_
