#ifndef STARLING_PLATFORM_QEMU_VIRT_NIC_H_
#define STARLING_PLATFORM_QEMU_VIRT_NIC_H_

#include <cstdint>
#include <string_view>

#include "drivers/virtio/net.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"
#include "platform/qemu_virt/virtio_mmio.h"

// QEMU virt's network interface: the first virtio-net device on the
// virtio-mmio bus (virtio_mmio.h).
namespace starling::board {

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
