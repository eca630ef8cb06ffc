#ifndef STARLING_KERNEL_FDT_BIG_ENDIAN_H_
#define STARLING_KERNEL_FDT_BIG_ENDIAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

// Device tree fields are big-endian and only 4-byte aligned in the blob (and
// the blob itself may sit at any address a hostile loader chose), so every
// load goes through memcpy: no unaligned access traps on RISC-V, no UB.
namespace starling::fdt {

inline std::uint32_t load_be32(const std::byte* p) {
  std::uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  if constexpr (std::endian::native == std::endian::little) {
    value = __builtin_bswap32(value);
  }
  return value;
}

inline std::uint64_t load_be64(const std::byte* p) {
  std::uint64_t value;
  std::memcpy(&value, p, sizeof(value));
  if constexpr (std::endian::native == std::endian::little) {
    value = __builtin_bswap64(value);
  }
  return value;
}

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_BIG_ENDIAN_H_
