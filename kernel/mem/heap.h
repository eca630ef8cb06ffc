#ifndef STARLING_KERNEL_MEM_HEAP_H_
#define STARLING_KERNEL_MEM_HEAP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/lib/result.h"

namespace starling::mem {

namespace detail {
struct HeapBlock;  // a block's header, defined in heap.cc
}  // namespace detail

struct HeapStats {
  std::size_t region_bytes = 0;      // all memory given to the heap
  std::size_t bytes_in_use = 0;      // blocks handed out, headers included
  std::size_t high_water_bytes = 0;  // most bytes_in_use ever
  std::size_t live_allocations = 0;
  std::size_t failed_allocations = 0;  // exhaustion, overflowing sizes, bad alignments
  std::size_t refused_frees = 0;       // pointers the heap did not hand out (or already freed)
};

// The kernel's general-purpose allocator, over memory regions it is given.
//
// Segregated fit with boundary tags: each block has a 16-byte header (size,
// flags, a check word), free blocks sit in one of 64 power-of-two bins and
// coalesce with free neighbours at once. An allocation takes the first block
// of the first non-empty bin whose every block fits (a bitmap lookup, O(1));
// only if there is none does it search the one bin that may hold a fit.
// Payloads are 16-byte aligned (max_align_t on RV64 and x86-64).
//
// Misuse is refused rather than obeyed: free() of a pointer outside the
// regions, misaligned, or whose header's check word is wrong (a double free,
// a pointer into the middle of a block, a header overwritten by an overflow)
// returns kInvalidArgument and is counted. A double free is always caught
// until the memory is handed out again; after that, as in any allocator
// without a side table, detection relies on the check word.
//
// Single hart, cooperative: no locking. constexpr-constructible, so a global
// Heap needs no constructor to run before it is usable.
class Heap {
 public:
  static constexpr std::size_t kAlignment = 16;
  static constexpr std::size_t kMaxRegions = 8;

  constexpr Heap() = default;
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  // Gives `memory` to the heap. kInvalidArgument if it is too small to hold
  // a block; kNoMemory if kMaxRegions are already in use.
  Result<void> add_region(std::span<std::byte> memory);

  // malloc semantics: nullptr (counted) when exhausted; size 0 gives a
  // unique minimal block.
  void* allocate(std::size_t size);
  // aligned_alloc: `alignment` a power of two, else nullptr (counted).
  void* allocate_aligned(std::size_t alignment, std::size_t size);
  // calloc: zeroed; nullptr if count * size overflows (counted).
  void* allocate_zeroed(std::size_t count, std::size_t size);
  // realloc: nullptr -> allocate; size 0 -> frees and returns nullptr; on
  // failure returns nullptr and leaves `pointer` untouched. Shrinks and
  // grows in place when it can.
  void* reallocate(void* pointer, std::size_t size);
  // free: nullptr is a no-op.
  Result<void> free(void* pointer);

  // Bytes usable at `pointer` (at least what was asked), 0 if not ours.
  std::size_t usable_size(const void* pointer) const;
  bool owns(const void* pointer) const;

  const HeapStats& stats() const { return stats_; }

  // Walks every block and bin: headers, check words, sizes, footers, no two
  // free neighbours, bins holding exactly the free blocks. For tests and
  // debugging; kMalformed on the first inconsistency.
  Result<void> check() const;

 private:
  using Block = detail::HeapBlock;
  struct Region {
    std::byte* first = nullptr;  // first block
    std::byte* end = nullptr;    // the end sentinel block
  };
  static constexpr std::size_t kBins = 64;

  Block* find_free(std::size_t block_size);
  void insert_free(Block* block);
  void remove_free(Block* block);
  // Turns a free block (already out of its bin) into a used one of exactly
  // `block_size` bytes, returning the tail to the bins.
  void take(Block* block, std::size_t block_size);
  // Marks a used block free, merges it with free neighbours, bins it.
  void release(Block* block);
  Block* block_of(const void* pointer) const;
  const Region* region_of(const void* pointer) const;
  void* fail();
  void count_in_use(std::ptrdiff_t delta);

  std::array<Region, kMaxRegions> regions_{};
  std::size_t region_count_ = 0;
  std::array<Block*, kBins> bins_{};
  std::uint64_t nonempty_bins_ = 0;
  HeapStats stats_;
};

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_HEAP_H_
