#ifndef STARLING_KERNEL_MEM_MEMORY_MAP_H_
#define STARLING_KERNEL_MEM_MEMORY_MAP_H_

#include "kernel/fdt/device_tree.h"
#include "kernel/lib/result.h"
#include "kernel/mem/range_set.h"

namespace starling::mem {

// The machine's memory as the device tree describes it.
struct MemoryMap {
  RangeSet ram;       // every `reg` of nodes with device_type = "memory"
  RangeSet reserved;  // /memreserve/ entries and every /reserved-memory child's `reg`
};

// Reads RAM and reservations. Reservations matter: OpenSBI runs from the
// first 512 KiB of QEMU's RAM and announces it as
// /reserved-memory/mmode_resv0@80000000; writing there faults (PMP) or, worse,
// corrupts the firmware. Disabled memory nodes (status other than "okay") are
// skipped. /reserved-memory children without `reg` (dynamic "size" +
// "alloc-ranges" requests) reserve nothing here. kMalformed for a range whose
// end wraps, a bad `reg`, or a device_type that is not a string; kNoMemory
// if a RangeSet runs out of slots.
Result<MemoryMap> read_memory_map(const fdt::DeviceTree& tree);

// RAM that nobody owns yet: RAM minus the reservations, the kernel image
// and the device tree blob itself (which the kernel still reads).
Result<RangeSet> free_memory(const MemoryMap& map, PhysRange kernel_image, PhysRange device_tree);

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_MEMORY_MAP_H_
