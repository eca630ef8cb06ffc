// Memory on the host board: the page allocator manages one block of the
// process's memory (--memory-mib), the heap is the host's malloc (under the
// sanitizers in tests), and coroutine frames get an arena from the pages as
// on riscv64 (kernel/boot/memory.cc), so frame exhaustion behaves the same.
#include <cstdlib>
#include <new>

#include "kernel/boot/boot_files.h"
#include "kernel/boot/memory.h"
#include "kernel/mem/address.h"
#include "platform/host/boot_options.h"

namespace starling::boot {
namespace {

mem::PageAllocator pages;
async::FrameAllocator* frames = nullptr;

}  // namespace

Result<MemorySummary> init_memory(unsigned long) {
  const std::size_t bytes = host::boot_options().memory_bytes;
  void* ram = std::aligned_alloc(mem::kPageSize, bytes);
  if (ram == nullptr) return Unexpected(Error::kNoMemory);
  const mem::PhysRange range{mem::to_phys(ram), mem::to_phys(ram) + bytes};
  if (auto ok = pages.init(std::span<const mem::PhysRange>(&range, 1)); !ok.ok()) {
    return Unexpected(ok.error());
  }
  MemorySummary summary;
  summary.ram_bytes = bytes;
  summary.free_bytes = pages.stats().free_pages * mem::kPageSize;
  auto arena = pages.allocate(kFrameArenaBytes / mem::kPageSize);
  if (!arena.ok()) return Unexpected(arena.error());
  frames = new (std::nothrow)
      async::FrameAllocator(std::span<std::byte>(mem::to_pointer(*arena), kFrameArenaBytes));
  if (frames == nullptr) return Unexpected(Error::kNoMemory);
  async::FrameAllocator::set_current(frames);
  summary.frame_arena_bytes = kFrameArenaBytes;
  return summary;
}

std::span<const std::byte> initrd() {
  return host::initrd_bytes();
}

mem::PageAllocator& page_allocator() {
  return pages;
}

async::FrameAllocator* frame_allocator() {
  return frames;
}

}  // namespace starling::boot
