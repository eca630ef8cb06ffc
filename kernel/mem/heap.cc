#include "kernel/mem/heap.h"

#include <cstring>

namespace starling::mem {
namespace detail {

// A block: this header, then the payload. Free blocks keep their bin links
// at the start of the payload and their size in their last word (the
// footer), so that the block after a free block can find its start.
struct HeapBlock {
  std::size_t size_flags;  // size (a multiple of 16) | kUsed | kPrevUsed
  std::uint64_t check;     // kCheckSeed ^ address ^ size_flags
  // Free blocks only:
  HeapBlock* next;
  HeapBlock* prev;
};

}  // namespace detail

namespace {

using Block = detail::HeapBlock;

constexpr std::size_t kHeader = 16;
constexpr std::size_t kUsed = 1;
constexpr std::size_t kPrevUsed = 2;
constexpr std::size_t kFlags = Heap::kAlignment - 1;
// Header, two links and a footer, rounded to the alignment.
constexpr std::size_t kMinBlock = 48;
// Larger requests are refused before any size arithmetic could wrap.
constexpr std::size_t kMaxRequest = std::size_t{1} << 47;
constexpr std::uint64_t kCheckSeed = 0x5ea1ed0b10c40000;

static_assert(kHeader == offsetof(Block, next));
static_assert(kMinBlock >= sizeof(Block) + sizeof(std::size_t));

constexpr std::size_t round_up(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Block bytes for `size` payload bytes (size <= kMaxRequest).
constexpr std::size_t block_size_for(std::size_t size) {
  const std::size_t bytes = round_up(size + kHeader, Heap::kAlignment);
  return bytes < kMinBlock ? kMinBlock : bytes;
}

// Bin b holds free blocks of [2^b, 2^(b+1)) bytes.
std::size_t bin_of(std::size_t size) {
  return 63 - static_cast<std::size_t>(__builtin_clzll(size));
}

std::byte* address_of(const Block* b) {
  return reinterpret_cast<std::byte*>(const_cast<Block*>(b));
}
std::size_t size_of(const Block* b) {
  return b->size_flags & ~kFlags;
}
bool is_used(const Block* b) {
  return (b->size_flags & kUsed) != 0;
}
bool prev_is_used(const Block* b) {
  return (b->size_flags & kPrevUsed) != 0;
}

std::uint64_t check_word(const Block* b, std::size_t size_flags) {
  return kCheckSeed ^ reinterpret_cast<std::uintptr_t>(b) ^ size_flags;
}
bool is_valid(const Block* b) {
  return b->check == check_word(b, b->size_flags);
}

Block* block_at(std::byte* address) {
  return reinterpret_cast<Block*>(address);
}
Block* next_of(const Block* b) {
  return block_at(address_of(b) + size_of(b));
}

void write_header(Block* b, std::size_t size, bool used, bool prev_used) {
  b->size_flags = size | (used ? kUsed : 0) | (prev_used ? kPrevUsed : 0);
  b->check = check_word(b, b->size_flags);
}

void set_prev_used(Block* b, bool prev_used) {
  write_header(b, size_of(b), is_used(b), prev_used);
}

std::size_t* footer_of(const Block* b) {
  return reinterpret_cast<std::size_t*>(address_of(b) + size_of(b) - sizeof(std::size_t));
}

Block* prev_of(const Block* b) {
  const std::size_t prev_size =
      *reinterpret_cast<const std::size_t*>(address_of(b) - sizeof(std::size_t));
  return block_at(address_of(b) - prev_size);
}

// A header that no longer starts a block: a later free() of it must fail.
void scrub(Block* b) {
  b->check = 0;
}

void* payload_of(Block* b) {
  return address_of(b) + kHeader;
}

}  // namespace

Result<void> Heap::add_region(std::span<std::byte> memory) {
  if (memory.data() == nullptr) return Unexpected(Error::kInvalidArgument);
  const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(memory.data());
  const std::uintptr_t begin = round_up(raw, kAlignment);
  const std::uintptr_t end = (raw + memory.size()) & ~std::uintptr_t{kFlags};
  if (begin >= end || end - begin < kMinBlock + kHeader) return Unexpected(Error::kInvalidArgument);
  for (std::size_t i = 0; i < region_count_; ++i) {
    const auto r_begin = reinterpret_cast<std::uintptr_t>(regions_[i].first);
    const auto r_end = reinterpret_cast<std::uintptr_t>(regions_[i].end) + kHeader;
    if (begin < r_end && r_begin < end) return Unexpected(Error::kInvalidArgument);
  }
  if (region_count_ == kMaxRegions) return Unexpected(Error::kNoMemory);

  std::byte* const first = memory.data() + (begin - raw);
  std::byte* const sentinel = memory.data() + (end - raw) - kHeader;
  // The sentinel is a used block of size 0: merging never runs past it.
  Block* block = block_at(first);
  write_header(block, static_cast<std::size_t>(sentinel - first), false, true);
  *footer_of(block) = size_of(block);
  write_header(block_at(sentinel), 0, true, false);
  insert_free(block);

  regions_[region_count_++] = Region{first, sentinel};
  stats_.region_bytes += end - begin;
  return {};
}

void Heap::insert_free(Block* b) {
  const std::size_t bin = bin_of(size_of(b));
  b->prev = nullptr;
  b->next = bins_[bin];
  if (b->next != nullptr) b->next->prev = b;
  bins_[bin] = b;
  nonempty_bins_ |= std::uint64_t{1} << bin;
}

void Heap::remove_free(Block* b) {
  const std::size_t bin = bin_of(size_of(b));
  if (b->prev != nullptr) {
    b->prev->next = b->next;
  } else {
    bins_[bin] = b->next;
  }
  if (b->next != nullptr) b->next->prev = b->prev;
  if (bins_[bin] == nullptr) nonempty_bins_ &= ~(std::uint64_t{1} << bin);
}

Heap::Block* Heap::find_free(std::size_t block_size) {
  // Every block in bin ceil(log2(size)) and above fits: take the first.
  const std::size_t fit_bin = bin_of(block_size - 1) + 1;
  const std::uint64_t candidates =
      fit_bin >= kBins ? 0 : nonempty_bins_ & ~((std::uint64_t{1} << fit_bin) - 1);
  if (candidates != 0) {
    Block* b = bins_[static_cast<std::size_t>(__builtin_ctzll(candidates))];
    remove_free(b);
    return b;
  }
  // Only the bin below may hold a block that fits: first fit there.
  const std::size_t bin = bin_of(block_size);
  if (bin == fit_bin) return nullptr;
  for (Block* b = bins_[bin]; b != nullptr; b = b->next) {
    if (size_of(b) >= block_size) {
      remove_free(b);
      return b;
    }
  }
  return nullptr;
}

void Heap::take(Block* b, std::size_t block_size) {
  const std::size_t total = size_of(b);
  if (total - block_size >= kMinBlock) {
    write_header(b, block_size, true, prev_is_used(b));
    // The tail's successor is used (free blocks are always merged), and
    // already believes its predecessor free.
    Block* tail = next_of(b);
    write_header(tail, total - block_size, false, true);
    *footer_of(tail) = size_of(tail);
    insert_free(tail);
  } else {
    write_header(b, total, true, prev_is_used(b));
    set_prev_used(next_of(b), true);
  }
}

void Heap::release(Block* b) {
  std::size_t size = size_of(b);
  Block* next = next_of(b);
  if (!is_used(next)) {
    remove_free(next);
    size += size_of(next);
    scrub(next);
  }
  if (!prev_is_used(b)) {
    Block* prev = prev_of(b);
    remove_free(prev);
    size += size_of(prev);
    scrub(b);
    b = prev;
  }
  write_header(b, size, false, prev_is_used(b));
  *footer_of(b) = size;
  insert_free(b);
  set_prev_used(next_of(b), false);
}

const Heap::Region* Heap::region_of(const void* pointer) const {
  const auto p = reinterpret_cast<std::uintptr_t>(pointer);
  for (std::size_t i = 0; i < region_count_; ++i) {
    const auto first = reinterpret_cast<std::uintptr_t>(regions_[i].first);
    const auto end = reinterpret_cast<std::uintptr_t>(regions_[i].end);
    if (p >= first && p < end) return &regions_[i];
  }
  return nullptr;
}

Heap::Block* Heap::block_of(const void* pointer) const {
  const auto p = reinterpret_cast<std::uintptr_t>(pointer);
  if (p % kAlignment != 0) return nullptr;
  const Region* region = region_of(pointer);
  if (region == nullptr || p - reinterpret_cast<std::uintptr_t>(region->first) < kHeader) {
    return nullptr;
  }
  Block* b = block_at(static_cast<std::byte*>(const_cast<void*>(pointer)) - kHeader);
  if (!is_valid(b) || !is_used(b) || size_of(b) < kMinBlock) return nullptr;
  if (size_of(b) > static_cast<std::size_t>(region->end - address_of(b))) return nullptr;
  return b;
}

bool Heap::owns(const void* pointer) const {
  return block_of(pointer) != nullptr;
}

std::size_t Heap::usable_size(const void* pointer) const {
  const Block* b = block_of(pointer);
  return b == nullptr ? 0 : size_of(b) - kHeader;
}

void* Heap::fail() {
  ++stats_.failed_allocations;
  return nullptr;
}

void Heap::count_in_use(std::ptrdiff_t delta) {
  if (delta < 0) {
    stats_.bytes_in_use -= static_cast<std::size_t>(-delta);
    return;
  }
  stats_.bytes_in_use += static_cast<std::size_t>(delta);
  if (stats_.bytes_in_use > stats_.high_water_bytes) stats_.high_water_bytes = stats_.bytes_in_use;
}

void* Heap::allocate(std::size_t size) {
  if (size > kMaxRequest) return fail();
  const std::size_t block_size = block_size_for(size);
  Block* b = find_free(block_size);
  if (b == nullptr) return fail();
  take(b, block_size);
  count_in_use(static_cast<std::ptrdiff_t>(size_of(b)));
  ++stats_.live_allocations;
  return payload_of(b);
}

void* Heap::allocate_aligned(std::size_t alignment, std::size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return fail();
  if (alignment <= kAlignment) return allocate(size);
  if (size > kMaxRequest || alignment > kMaxRequest) return fail();
  const std::size_t block_size = block_size_for(size);
  // Room to move the payload up to the alignment and still leave a whole
  // free block in front of it (the gap is 0 or at least kMinBlock).
  Block* b = find_free(block_size + alignment + kMinBlock);
  if (b == nullptr) return fail();
  const auto payload = reinterpret_cast<std::uintptr_t>(payload_of(b));
  std::uintptr_t aligned = round_up(payload, alignment);
  if (aligned != payload && aligned - payload < kMinBlock) aligned += alignment;
  const std::size_t gap = aligned - payload;
  if (gap != 0) {
    const std::size_t total = size_of(b);
    write_header(b, gap, false, prev_is_used(b));
    *footer_of(b) = gap;
    insert_free(b);
    b = next_of(b);
    write_header(b, total - gap, false, false);
  }
  take(b, block_size);
  count_in_use(static_cast<std::ptrdiff_t>(size_of(b)));
  ++stats_.live_allocations;
  return payload_of(b);
}

void* Heap::allocate_zeroed(std::size_t count, std::size_t size) {
  std::size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) return fail();
  void* p = allocate(total);
  if (p != nullptr) std::memset(p, 0, total);
  return p;
}

Result<void> Heap::free(void* pointer) {
  if (pointer == nullptr) return {};
  Block* b = block_of(pointer);
  if (b == nullptr) {
    ++stats_.refused_frees;
    return Unexpected(Error::kInvalidArgument);
  }
  count_in_use(-static_cast<std::ptrdiff_t>(size_of(b)));
  --stats_.live_allocations;
  release(b);
  return {};
}

void* Heap::reallocate(void* pointer, std::size_t size) {
  if (pointer == nullptr) return allocate(size);
  if (size == 0) {
    (void)free(pointer);
    return nullptr;
  }
  Block* b = block_of(pointer);
  if (b == nullptr) {
    ++stats_.refused_frees;
    return nullptr;
  }
  if (size > kMaxRequest) return fail();
  const std::size_t block_size = block_size_for(size);
  const std::size_t old_size = size_of(b);

  if (block_size <= old_size) {
    if (old_size - block_size >= kMinBlock) {
      // Cut the tail off as a used block and release it, merging it with a
      // free successor.
      write_header(b, block_size, true, prev_is_used(b));
      Block* tail = next_of(b);
      write_header(tail, old_size - block_size, true, true);
      count_in_use(-static_cast<std::ptrdiff_t>(old_size - block_size));
      release(tail);
    }
    return pointer;
  }

  Block* next = next_of(b);
  if (!is_used(next) && old_size + size_of(next) >= block_size) {
    remove_free(next);
    const std::size_t combined = old_size + size_of(next);
    scrub(next);
    write_header(b, combined, false, prev_is_used(b));
    take(b, block_size);
    count_in_use(static_cast<std::ptrdiff_t>(size_of(b) - old_size));
    return pointer;
  }

  void* moved = allocate(size);
  if (moved == nullptr) return nullptr;  // allocate() counted the failure
  std::memcpy(moved, pointer, old_size - kHeader);
  (void)free(pointer);
  return moved;
}

Result<void> Heap::check() const {
  std::size_t free_blocks = 0;
  for (std::size_t i = 0; i < region_count_; ++i) {
    const Region& region = regions_[i];
    bool prev_used = true;
    std::byte* at = region.first;
    while (at < region.end) {
      const Block* b = block_at(at);
      const std::size_t size = size_of(b);
      if (!is_valid(b) || size < kMinBlock || size > static_cast<std::size_t>(region.end - at) ||
          prev_is_used(b) != prev_used) {
        return Unexpected(Error::kMalformed);
      }
      if (!is_used(b)) {
        if (!prev_used || *footer_of(b) != size) return Unexpected(Error::kMalformed);
        ++free_blocks;
      }
      prev_used = is_used(b);
      at += size;
    }
    const Block* sentinel = block_at(region.end);
    if (at != region.end || !is_valid(sentinel) || !is_used(sentinel) || size_of(sentinel) != 0 ||
        prev_is_used(sentinel) != prev_used) {
      return Unexpected(Error::kMalformed);
    }
  }
  std::size_t binned = 0;
  for (std::size_t bin = 0; bin < kBins; ++bin) {
    const bool marked = (nonempty_bins_ >> bin) & 1;
    if (marked != (bins_[bin] != nullptr)) return Unexpected(Error::kMalformed);
    const Block* prev = nullptr;
    for (const Block* b = bins_[bin]; b != nullptr; b = b->next) {
      // Bounded: a cycle would exceed the count of free blocks.
      if (++binned > free_blocks || is_used(b) || bin_of(size_of(b)) != bin || b->prev != prev) {
        return Unexpected(Error::kMalformed);
      }
      prev = b;
    }
  }
  if (binned != free_blocks) return Unexpected(Error::kMalformed);
  return {};
}

}  // namespace starling::mem
