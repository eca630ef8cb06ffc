#ifndef STARLING_PLATFORM_QEMU_VIRT_VIRTIO_MMIO_H_
#define STARLING_PLATFORM_QEMU_VIRT_VIRTIO_MMIO_H_

#include <cstdint>

// QEMU virt's virtio-mmio bus (docs/hardware/qemu-virt.md §7): eight slots
// at 0x10001000 + 0x1000*i, PLIC source 1 + i. Without `bus=` QEMU 7.2 puts
// the first virtio-*-device on the highest slot (7, 0x10008000, IRQ 8).
namespace starling::board {

inline constexpr std::uintptr_t kVirtioMmioBase = 0x1000'1000;
inline constexpr std::uintptr_t kVirtioMmioStride = 0x1000;
inline constexpr std::uint32_t kVirtioMmioSlots = 8;
inline constexpr std::uint32_t kVirtioMmioFirstIrq = 1;

}  // namespace starling::board

#endif  // STARLING_PLATFORM_QEMU_VIRT_VIRTIO_MMIO_H_
