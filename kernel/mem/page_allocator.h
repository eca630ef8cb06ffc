#ifndef STARLING_KERNEL_MEM_PAGE_ALLOCATOR_H_
#define STARLING_KERNEL_MEM_PAGE_ALLOCATOR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"
#include "kernel/mem/range_set.h"

namespace starling::mem {

struct PageAllocatorStats {
  std::size_t total_pages = 0;  // managed, not counting the allocator's own bitmaps
  std::size_t free_pages = 0;
  std::size_t high_water_pages = 0;  // most pages ever in use at once
  std::size_t failed_allocations = 0;
  std::size_t refused_frees = 0;  // double, foreign or misaligned frees
};

// Physical pages (4 KiB) over the free ranges of the memory map.
//
// Two bitmaps, one bit per page each: "used", and "head" (first page of an
// allocation). The head bit is what makes free() safe: freeing an address
// that is not the start of a live allocation (a double free, a pointer into
// the middle of a run, an address outside every range) is refused and
// counted, and the bitmaps stay exactly as they were. The bitmaps live in the
// first pages of the largest range, outside every page handed out.
//
// First fit over the bitmaps: O(pages) worst case. Page runs are taken at
// boot and for heap growth and DMA pools, not per packet.
class PageAllocator {
 public:
  static constexpr std::size_t kMaxRegions = 16;

  constexpr PageAllocator() = default;
  PageAllocator(const PageAllocator&) = delete;
  PageAllocator& operator=(const PageAllocator&) = delete;

  // Takes over `ranges` (rounded inwards to whole pages; must be mapped and
  // writable). Once only. kNoMemory if no range can hold even the bitmaps
  // plus a page; kInvalidArgument if called twice or with more than
  // kMaxRegions non-empty ranges.
  Result<void> init(std::span<const PhysRange> ranges);

  // `count` contiguous pages whose first address is a multiple of
  // `alignment` bytes (a power of two; below a page means a page).
  // kNoMemory (counted) if no run fits; kInvalidArgument for count 0 or a
  // bad alignment.
  Result<PhysAddr> allocate(std::size_t count, std::size_t alignment = kPageSize);

  // Frees the allocation that starts at `address`. kInvalidArgument
  // (counted in refused_frees) if no live allocation starts there.
  Result<void> free(PhysAddr address);

  // Pages in the allocation starting at `address`, 0 if none starts there.
  std::size_t allocation_pages(PhysAddr address) const;

  const PageAllocatorStats& stats() const { return stats_; }

 private:
  struct Region {
    PhysAddr base = 0;
    std::size_t pages = 0;
    std::size_t first_bit = 0;  // index of its first page in the bitmaps
  };
  static constexpr std::size_t kBitsPerWord = 64;

  bool test(const std::uint64_t* bitmap, std::size_t bit) const {
    return (bitmap[bit / kBitsPerWord] >> (bit % kBitsPerWord)) & 1;
  }
  void set(std::uint64_t* bitmap, std::size_t bit, bool value);
  // The bit of the page at `address`, if a region holds it.
  bool bit_of(PhysAddr address, std::size_t* bit) const;
  bool find_run(const Region& region, std::size_t count, std::uint64_t alignment,
                std::size_t* first) const;

  std::array<Region, kMaxRegions> regions_{};
  std::size_t region_count_ = 0;
  std::uint64_t* used_ = nullptr;
  std::uint64_t* head_ = nullptr;
  bool initialized_ = false;
  PageAllocatorStats stats_;
};

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_PAGE_ALLOCATOR_H_
