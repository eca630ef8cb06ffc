#ifndef STARLING_KERNEL_HAL_DEVICES_H_
#define STARLING_KERNEL_HAL_DEVICES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

// The device registers a board's drivers use. With paging on
// (kernel/boot/paging.h) these are the only device addresses mapped
// (read+write, never execute); any other device access faults and is named
// "unmapped". Each board package (platform/<board>/) defines
// device_regions(); only the board knows addresses.
namespace starling::board {

struct DeviceRegion {
  std::uintptr_t base = 0;  // 4 KiB-aligned
  std::size_t size = 0;     // a multiple of 4 KiB
  std::string_view name;
};

std::span<const DeviceRegion> device_regions();

}  // namespace starling::board

#endif  // STARLING_KERNEL_HAL_DEVICES_H_
