#ifndef STARLING_KERNEL_MEM_ADDRESS_H_
#define STARLING_KERNEL_MEM_ADDRESS_H_

#include <cstddef>
#include <cstdint>

namespace starling::mem {

// A physical address: what devices and the device tree speak. Kept apart
// from CPU pointers in every API, so that turning on paging one day changes
// the two functions below and nothing else.
using PhysAddr = std::uint64_t;

inline constexpr std::size_t kPageSize = 4096;

// The kernel runs with satp = Bare: physical and virtual addresses are
// identical. These are the only places that rely on it.
inline std::byte* to_pointer(PhysAddr address) {
  return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address));
}
inline PhysAddr to_phys(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

constexpr bool is_power_of_two(std::uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Rounds up to a power-of-two alignment; false if the result would wrap.
constexpr bool align_up(std::uint64_t value, std::uint64_t alignment, std::uint64_t* result) {
  const std::uint64_t mask = alignment - 1;
  if (value > ~std::uint64_t{0} - mask) return false;
  *result = (value + mask) & ~mask;
  return true;
}

constexpr std::uint64_t align_down(std::uint64_t value, std::uint64_t alignment) {
  return value & ~(alignment - 1);
}

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_ADDRESS_H_
