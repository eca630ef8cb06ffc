#ifndef STARLING_KERNEL_MEM_DMA_POOL_H_
#define STARLING_KERNEL_MEM_DMA_POOL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"
#include "kernel/mem/page_allocator.h"

namespace starling::mem {

// A buffer a device may read or write: the CPU's pointer and the address
// the device must be given. Identity-mapped today, but a driver that writes
// `cpu` into a descriptor is wrong, and this type makes the choice visible.
class DmaBuffer {
 public:
  constexpr DmaBuffer() = default;
  constexpr DmaBuffer(std::byte* cpu, PhysAddr phys, std::size_t size, std::uint32_t index)
      : cpu_(cpu), phys_(phys), size_(size), index_(index) {}

  std::byte* cpu() const { return cpu_; }
  PhysAddr phys() const { return phys_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> bytes() const { return {cpu_, size_}; }
  std::uint32_t index() const { return index_; }  // its slot in the pool

 private:
  std::byte* cpu_ = nullptr;
  PhysAddr phys_ = 0;
  std::size_t size_ = 0;
  std::uint32_t index_ = 0;
};

// Memory handed to a pool: where the CPU sees it and where devices do.
struct DmaRegion {
  std::byte* cpu = nullptr;
  PhysAddr phys = 0;
  std::size_t size = 0;
};

struct DmaPoolStats {
  std::size_t capacity = 0;
  std::size_t in_use = 0;
  std::size_t high_water = 0;
  std::size_t failed_allocations = 0;
  std::size_t refused_frees = 0;  // double frees and buffers from elsewhere
};

// N buffers of one size, each aligned (in physical address) as the device
// needs: 64 for cache lines, 2048 for a DWMAC RX buffer, ...
//
// The free list is an index stack in `metadata`, memory the caller gives
// and no device is told about: a device scribbling over a buffer (a too-long
// frame, a stale descriptor) cannot corrupt the pool's bookkeeping, which an
// intrusive free list inside the buffers could not promise. allocate() and
// free() are O(1); a free of a buffer that is not in use, or not from this
// pool, is refused and counted.
class DmaPool {
 public:
  struct Shape {
    std::size_t buffer_size = 0;
    std::size_t alignment = 64;  // a power of two
    std::size_t count = 0;
  };

  // 32-bit words of metadata a pool of `count` buffers needs: the index
  // stack plus an in-use bitmap.
  static constexpr std::size_t metadata_words(std::size_t count) {
    return count + (count + 31) / 32;
  }

  constexpr DmaPool() = default;
  DmaPool(const DmaPool&) = delete;
  DmaPool& operator=(const DmaPool&) = delete;

  // Carves the buffers out of `region`. kInvalidArgument for a bad shape,
  // too little metadata or a second init; kNoMemory if they do not fit.
  Result<void> init(DmaRegion region, Shape shape, std::span<std::uint32_t> metadata);
  // The same over pages from `pages` (identity-mapped). The pages stay the
  // pool's for good: pools live as long as their driver, i.e. forever.
  Result<void> init(PageAllocator& pages, Shape shape, std::span<std::uint32_t> metadata);

  // A free buffer, or kNoMemory (counted) when all are in use.
  Result<DmaBuffer> allocate();
  // kInvalidArgument (counted) if `buffer` is not one of ours in use.
  Result<void> free(const DmaBuffer& buffer);

  // The pool's buffer at a device address (a completed RX descriptor) or a
  // CPU pointer (an lwIP pbuf payload), in use or not.
  std::optional<DmaBuffer> from_phys(PhysAddr phys) const;
  std::optional<DmaBuffer> from_cpu(const void* cpu) const;

  std::size_t buffer_size() const { return shape_.buffer_size; }
  const DmaPoolStats& stats() const { return stats_; }

 private:
  DmaBuffer buffer(std::uint32_t index) const;
  bool in_use(std::uint32_t index) const;
  void mark(std::uint32_t index, bool used);

  std::byte* cpu_base_ = nullptr;
  PhysAddr phys_base_ = 0;
  std::size_t stride_ = 0;
  Shape shape_;
  std::span<std::uint32_t> free_stack_;
  std::span<std::uint32_t> in_use_bits_;
  std::size_t free_count_ = 0;
  DmaPoolStats stats_;
};

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_DMA_POOL_H_
