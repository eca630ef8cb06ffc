#include "kernel/boot/memory.h"

#include <new>
#include <span>

#include "kernel/boot/boot_files.h"
#include "kernel/fdt/chosen.h"
#include "kernel/fdt/device_tree.h"
#include "kernel/mem/address.h"
#include "kernel/mem/kernel_heap.h"
#include "kernel/mem/memory_map.h"
#include "kernel/mem/out_of_memory.h"
#include "kernel/panic/panic.h"

// Bounds of the loaded image, .bss and boot stack included (linker script).
extern "C" char __image_start[];
extern "C" char __image_end[];

namespace starling::boot {
namespace {

constinit mem::PageAllocator pages;
constinit MemoryRegions regions;

// The frame allocator is a class with a constructor taking its arena: keep
// raw storage and construct it once the arena exists.
alignas(async::FrameAllocator) constinit std::byte
    frame_storage[sizeof(async::FrameAllocator)] = {};
constinit async::FrameAllocator* frames = nullptr;

mem::PhysRange range_of(std::span<const std::byte> bytes) {
  return {mem::to_phys(bytes.data()), mem::to_phys(bytes.data()) + bytes.size()};
}

Result<std::span<std::byte>> take_pages(std::size_t bytes, std::size_t alignment = mem::kPageSize) {
  auto base = pages.allocate(bytes / mem::kPageSize, alignment);
  if (!base.ok()) return Unexpected(base.error());
  return std::span<std::byte>(mem::to_pointer(*base), bytes);
}

}  // namespace

Result<MemorySummary> init_memory(unsigned long dtb) {
  auto tree = fdt::DeviceTree::open(mem::to_pointer(dtb), fdt::kMaxFirmwareTreeBytes);
  if (!tree.ok()) return Unexpected(tree.error());
  auto map = mem::read_memory_map(*tree);
  if (!map.ok()) return Unexpected(map.error());

  const mem::PhysRange image{mem::to_phys(__image_start), mem::to_phys(__image_end)};
  const mem::PhysRange blob{dtb, dtb + tree->bytes().size()};
  auto free = mem::free_memory(*map, image, blob);
  if (!free.ok()) return Unexpected(free.error());
  // The initrd's pages stay the bootloader's (boot_files.h): out of the
  // page allocator, mapped read-only. One outside RAM is ignored.
  if (auto chosen = fdt::read_chosen(*tree); chosen.ok() && chosen->initrd) {
    const mem::PhysRange initrd{chosen->initrd->start, chosen->initrd->end};
    if (map->ram.contains(initrd.begin) && map->ram.contains(initrd.end - 1)) {
      if (auto ok = free->subtract(initrd); !ok.ok()) return Unexpected(ok.error());
      regions.initrd = initrd;
    }
  }
  if (auto ok = pages.init(free->ranges()); !ok.ok()) return Unexpected(ok.error());
  regions.free = *free;

  MemorySummary summary;
  summary.ram_bytes = map->ram.total_bytes();
  summary.reserved_bytes = map->reserved.total_bytes();
  summary.free_bytes = free->total_bytes();

  // Each with its guard pages (left unmapped when paging is on: paging.h):
  // one past the heap's end, one on either side of the frame arena.
  // The heap on a 2 MiB boundary: the page tables map it in 2 MiB pages.
  auto heap_pages = take_pages(kHeapBytes + mem::kPageSize, 2u << 20);
  if (!heap_pages.ok()) return Unexpected(heap_pages.error());
  const std::span<std::byte> heap = heap_pages->first(kHeapBytes);
  if (auto ok = mem::kernel_heap().add_region(heap); !ok.ok()) return Unexpected(ok.error());
  summary.heap_bytes = heap.size();
  regions.heap = range_of(heap);
  regions.heap_guard = range_of(heap_pages->subspan(kHeapBytes));

  auto arena_pages = take_pages(mem::kPageSize + kFrameArenaBytes + mem::kPageSize);
  if (!arena_pages.ok()) return Unexpected(arena_pages.error());
  const std::span<std::byte> arena = arena_pages->subspan(mem::kPageSize, kFrameArenaBytes);
  regions.arena = range_of(arena);
  regions.arena_guard_below = range_of(arena_pages->first(mem::kPageSize));
  regions.arena_guard_above = range_of(arena_pages->last(mem::kPageSize));
  frames = ::new (frame_storage) async::FrameAllocator(arena);
  async::FrameAllocator::set_current(frames);
  summary.frame_arena_bytes = arena.size();
  return summary;
}

const MemoryRegions& memory_regions() {
  return regions;
}

std::span<const std::byte> initrd() {
  if (regions.initrd.empty()) return {};
  return {mem::to_pointer(regions.initrd.begin), regions.initrd.size()};
}

mem::PageAllocator& page_allocator() {
  return pages;
}

async::FrameAllocator* frame_allocator() {
  return frames;
}

}  // namespace starling::boot

namespace starling::mem {

// Plain operator new has no way to report failure without exceptions: an
// allocation that must not fail did.
[[noreturn]] void out_of_memory(std::size_t /*requested_bytes*/) {
  panic("out of memory");
}

}  // namespace starling::mem
