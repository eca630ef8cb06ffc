#ifndef STARLING_KERNEL_BOOT_PAGING_H_
#define STARLING_KERNEL_BOOT_PAGING_H_

#include "kernel/lib/result.h"
#include "kernel/mem/memory_layout.h"
#include "kernel/mem/sv39.h"

// The MMU on (Sv39, kernel/mem/sv39.h), after init_memory(): one address
// space in which every mapped address is its own physical address, built
// from the image's sections (platform/<board>/linker.ld), the memory
// init_memory() handed out, the device tree and the board's devices
// (kernel/hal/devices.h):
//
//   .text                  read+execute
//   .rodata, .init_array   read
//   .data, .bss            read+write
//   guard page             unmapped (below the boot stack)
//   boot stack, trap stack read+write
//   device tree            read
//   heap, frame arena, the page allocator's other memory   read+write
//   guard pages            unmapped (past the heap, around the frame arena)
//   each device            read+write
//
// Nothing is both writable and executable; everything else (page 0, the
// first megabyte, firmware's memory, devices the board does not use) is
// unmapped. A page fault then panics with the access, the address and what
// lives there (mem::MemoryLayout::describe). The map is printed at boot, a
// line a region.
namespace starling::boot {

struct PagingSummary {
  mem::sv39::Counts counts;
  std::size_t table_bytes = 0;
};

// Builds the tables in pages from the page allocator and turns paging on.
// An error leaves satp Bare (nothing mapped is half on): kNoMemory for no
// pages, kInvalidArgument or kBusy for a map the tables refused (a region
// overlapping another, a bug in the layout), each printed.
Result<PagingSummary> enable_paging(unsigned long dtb);

// What enable_paging() recorded (empty before).
const mem::MemoryLayout& memory_layout();

}  // namespace starling::boot

#endif  // STARLING_KERNEL_BOOT_PAGING_H_
