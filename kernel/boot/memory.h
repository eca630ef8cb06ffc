#ifndef STARLING_KERNEL_BOOT_MEMORY_H_
#define STARLING_KERNEL_BOOT_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "kernel/async/frame_allocator.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"
#include "kernel/mem/range_set.h"

// Memory at boot: the device tree firmware passed says where RAM is and what
// is reserved (OpenSBI's own region among it); what is left, minus the image
// and the device tree, goes to the page allocator, which then feeds the heap
// and the coroutine frame arena.
namespace starling::boot {

struct MemorySummary {
  std::uint64_t ram_bytes = 0;       // all RAM the device tree lists
  std::uint64_t reserved_bytes = 0;  // reserved by firmware (memreserve, /reserved-memory)
  std::uint64_t free_bytes = 0;      // handed to the page allocator
  std::size_t heap_bytes = 0;
  std::size_t frame_arena_bytes = 0;
};

// Heap and frame arena sizes carved from the free pages at boot.
inline constexpr std::size_t kHeapBytes = 4u << 20;
inline constexpr std::size_t kFrameArenaBytes = 1u << 20;

// Reads the device tree at `dtb`, sets up the page allocator, the kernel heap
// (malloc/new) and the frame allocator for coroutines. kMalformed for a bad
// device tree, kNoMemory if RAM is too small; the kernel then runs without a
// heap (allocations fail, counted) and on the built-in frame arena.
Result<MemorySummary> init_memory(unsigned long dtb);

// Where init_memory() put things, for the page tables (paging.h): all free
// memory as the page allocator got it, and in it the heap, the frame arena
// and their guard pages. Empty ranges before init_memory() (or after it
// failed).
struct MemoryRegions {
  mem::RangeSet free;
  mem::PhysRange heap;
  mem::PhysRange heap_guard;         // the page past the heap's end
  mem::PhysRange arena;              // the coroutine frame arena
  mem::PhysRange arena_guard_below;  // the page below it
  mem::PhysRange arena_guard_above;  // the page past it
  mem::PhysRange initrd;             // the boot files (empty: none)
};
const MemoryRegions& memory_regions();

// The page allocator init_memory() set up (empty before).
mem::PageAllocator& page_allocator();

// The frame arena init_memory() set up, or nullptr.
async::FrameAllocator* frame_allocator();

}  // namespace starling::boot

#endif  // STARLING_KERNEL_BOOT_MEMORY_H_
