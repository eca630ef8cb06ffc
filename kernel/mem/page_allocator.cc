#include "kernel/mem/page_allocator.h"

#include <cstring>

namespace starling::mem {

void PageAllocator::set(std::uint64_t* bitmap, std::size_t bit, bool value) {
  const std::uint64_t mask = std::uint64_t{1} << (bit % kBitsPerWord);
  if (value) {
    bitmap[bit / kBitsPerWord] |= mask;
  } else {
    bitmap[bit / kBitsPerWord] &= ~mask;
  }
}

Result<void> PageAllocator::init(std::span<const PhysRange> ranges) {
  if (initialized_) return Unexpected(Error::kInvalidArgument);
  std::size_t total_pages = 0;
  std::size_t largest = 0;
  for (const PhysRange& range : ranges) {
    std::uint64_t begin = 0;
    if (!align_up(range.begin, kPageSize, &begin)) continue;
    const std::uint64_t end = align_down(range.end, kPageSize);
    if (end <= begin) continue;
    if (region_count_ == kMaxRegions) {
      region_count_ = 0;
      return Unexpected(Error::kInvalidArgument);
    }
    Region& region = regions_[region_count_];
    region.base = begin;
    region.pages = static_cast<std::size_t>((end - begin) / kPageSize);
    if (region.pages > regions_[largest].pages) largest = region_count_;
    total_pages += region.pages;
    ++region_count_;
  }
  if (region_count_ == 0) return Unexpected(Error::kNoMemory);

  // Both bitmaps, sized for every page (including the ones they occupy, a
  // few bits of slack), carved from the start of the largest region.
  const std::size_t words = (total_pages + kBitsPerWord - 1) / kBitsPerWord;
  const std::size_t bitmap_bytes = 2 * words * sizeof(std::uint64_t);
  const std::size_t bitmap_pages = (bitmap_bytes + kPageSize - 1) / kPageSize;
  Region& home = regions_[largest];
  if (home.pages <= bitmap_pages) {
    region_count_ = 0;
    return Unexpected(Error::kNoMemory);
  }
  used_ = reinterpret_cast<std::uint64_t*>(to_pointer(home.base));
  head_ = used_ + words;
  std::memset(used_, 0, bitmap_bytes);
  home.base += bitmap_pages * kPageSize;
  home.pages -= bitmap_pages;

  std::size_t bit = 0;
  for (std::size_t i = 0; i < region_count_; ++i) {
    regions_[i].first_bit = bit;
    bit += regions_[i].pages;
  }
  stats_ = PageAllocatorStats{};
  stats_.total_pages = bit;
  stats_.free_pages = bit;
  initialized_ = true;
  return {};
}

bool PageAllocator::bit_of(PhysAddr address, std::size_t* bit) const {
  for (std::size_t i = 0; i < region_count_; ++i) {
    const Region& r = regions_[i];
    if (address >= r.base && (address - r.base) / kPageSize < r.pages) {
      *bit = r.first_bit + static_cast<std::size_t>((address - r.base) / kPageSize);
      return true;
    }
  }
  return false;
}

bool PageAllocator::find_run(const Region& region, std::size_t count, std::uint64_t alignment,
                             std::size_t* first) const {
  if (count > region.pages) return false;
  std::uint64_t candidate = 0;
  if (!align_up(region.base, alignment, &candidate)) return false;
  for (;;) {
    if (candidate < region.base) return false;
    const std::uint64_t index = (candidate - region.base) / kPageSize;
    if (index > region.pages - count) return false;
    const std::size_t start = region.first_bit + static_cast<std::size_t>(index);
    std::size_t busy = 0;
    bool fits = true;
    for (std::size_t i = 0; i < count; ++i) {
      if (test(used_, start + i)) {
        busy = start + i;
        fits = false;
        break;
      }
    }
    if (fits) {
      *first = start;
      return true;
    }
    // Resume at the first aligned page after the busy one.
    const std::uint64_t after = region.base + (busy - region.first_bit + 1) * kPageSize;
    if (!align_up(after, alignment, &candidate)) return false;
  }
}

Result<PhysAddr> PageAllocator::allocate(std::size_t count, std::size_t alignment) {
  if (count == 0 || !is_power_of_two(alignment)) return Unexpected(Error::kInvalidArgument);
  if (alignment < kPageSize) alignment = kPageSize;
  for (std::size_t i = 0; i < region_count_; ++i) {
    std::size_t first = 0;
    if (!find_run(regions_[i], count, alignment, &first)) continue;
    for (std::size_t b = first; b < first + count; ++b) set(used_, b, true);
    set(head_, first, true);
    stats_.free_pages -= count;
    const std::size_t in_use = stats_.total_pages - stats_.free_pages;
    if (in_use > stats_.high_water_pages) stats_.high_water_pages = in_use;
    return regions_[i].base + (first - regions_[i].first_bit) * kPageSize;
  }
  ++stats_.failed_allocations;
  return Unexpected(Error::kNoMemory);
}

std::size_t PageAllocator::allocation_pages(PhysAddr address) const {
  std::size_t bit = 0;
  if (address % kPageSize != 0 || !bit_of(address, &bit)) return 0;
  if (!test(head_, bit) || !test(used_, bit)) return 0;
  // The run ends at the first page that is free or starts another run, or
  // at the end of the region (runs never cross regions).
  std::size_t end_bit = 0;
  for (std::size_t i = 0; i < region_count_; ++i) {
    const Region& r = regions_[i];
    if (bit >= r.first_bit && bit < r.first_bit + r.pages) end_bit = r.first_bit + r.pages;
  }
  std::size_t pages = 1;
  while (bit + pages < end_bit && test(used_, bit + pages) && !test(head_, bit + pages)) ++pages;
  return pages;
}

Result<void> PageAllocator::free(PhysAddr address) {
  const std::size_t pages = allocation_pages(address);
  if (pages == 0) {
    ++stats_.refused_frees;
    return Unexpected(Error::kInvalidArgument);
  }
  std::size_t bit = 0;
  bit_of(address, &bit);
  set(head_, bit, false);
  for (std::size_t b = bit; b < bit + pages; ++b) set(used_, b, false);
  stats_.free_pages += pages;
  return {};
}

}  // namespace starling::mem
