#ifndef STARLING_PLATFORM_QEMU_VIRT_NIC_H_
#define STARLING_PLATFORM_QEMU_VIRT_NIC_H_

#include <cstdint>
#include <string_view>

#include "drivers/virtio/net.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"

// QEMU virt's network interface: the first virtio-net device on the
// virtio-mmio bus. docs/hardware/qemu-virt.md §7: eight slots at 0x10001000 + 0x1000*i,
// PLIC source 1 + i. Without `bus=` QEMU 7.2 puts the first
// virtio-*-device on the highest slot (7, 0x10008000, IRQ 8).
namespace starling::board {

inline constexpr std::uintptr_t kVirtioMmioBase = 0x1000'1000;
inline constexpr std::uintptr_t kVirtioMmioStride = 0x1000;
inline constexpr std::uint32_t kVirtioMmioSlots = 8;
inline constexpr std::uint32_t kVirtioMmioFirstIrq = 1;

using Nic = virtio::Net;
// The driver's name in metrics (the nic="..." label).
inline constexpr std::string_view kNicName = "virtio-net";

// Probes slots 0..7 once and brings the first virtio-net device up, with its
// rings and buffers from `pages`. Call after init_interrupts(). kNotFound if
// there is none; otherwise virtio::Net::init's error. Later calls return
// the same device (or the same error).
Result<Nic*> nic(mem::PageAllocator& pages);

// The slot nic() found (0..7), or -1.
int nic_slot();

}  // namespace starling::board

#endif  // STARLING_PLATFORM_QEMU_VIRT_NIC_H_
