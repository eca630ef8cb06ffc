#include "kernel/mem/heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

namespace starling::mem {
namespace {

class HeapTest : public ::testing::Test {
 protected:
  static constexpr std::size_t kArena = 256 * 1024;

  void SetUp() override { ASSERT_TRUE(heap_.add_region(std::span(arena_)).ok()); }
  void expect_consistent() {
    Result<void> ok = heap_.check();
    EXPECT_TRUE(ok.ok());
  }

  alignas(16) std::byte arena_[kArena];
  Heap heap_;
};

bool aligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

TEST_F(HeapTest, AllocatesAlignedWritableMemory) {
  for (std::size_t size : {1u, 7u, 16u, 17u, 100u, 4096u, 10000u}) {
    void* p = heap_.allocate(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(aligned(p, Heap::kAlignment));
    EXPECT_GE(heap_.usable_size(p), size);
    EXPECT_TRUE(heap_.owns(p));
    std::memset(p, 0x5a, size);
  }
  EXPECT_EQ(heap_.stats().live_allocations, 7u);
  expect_consistent();
}

TEST_F(HeapTest, ZeroSizeGivesUniquePointers) {
  void* a = heap_.allocate(0);
  void* b = heap_.allocate(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_TRUE(heap_.free(a).ok());
  EXPECT_TRUE(heap_.free(b).ok());
}

TEST_F(HeapTest, FreeingEverythingCoalescesBackToOneBlock) {
  std::vector<void*> all;
  while (void* p = heap_.allocate(200)) all.push_back(p);
  EXPECT_GT(all.size(), 1000u);
  EXPECT_EQ(heap_.stats().failed_allocations, 1u);
  // Free in an interleaved order so both forward and backward merges run.
  for (std::size_t i = 0; i < all.size(); i += 2) ASSERT_TRUE(heap_.free(all[i]).ok());
  expect_consistent();
  for (std::size_t i = 1; i < all.size(); i += 2) ASSERT_TRUE(heap_.free(all[i]).ok());
  expect_consistent();
  EXPECT_EQ(heap_.stats().bytes_in_use, 0u);
  EXPECT_EQ(heap_.stats().live_allocations, 0u);
  // Everything merged: one allocation of nearly the whole arena fits.
  void* big = heap_.allocate(kArena - 64);
  EXPECT_NE(big, nullptr);
}

TEST_F(HeapTest, ExhaustionReturnsNullCountsAndRecovers) {
  EXPECT_EQ(heap_.allocate(kArena), nullptr);
  EXPECT_EQ(heap_.allocate(~std::size_t{0}), nullptr);
  EXPECT_EQ(heap_.allocate(~std::size_t{0} - 15), nullptr);
  EXPECT_EQ(heap_.stats().failed_allocations, 3u);
  EXPECT_EQ(heap_.stats().bytes_in_use, 0u);
  expect_consistent();
  void* p = heap_.allocate(kArena / 2);
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(heap_.allocate(kArena / 2), nullptr);
  ASSERT_TRUE(heap_.free(p).ok());
  EXPECT_NE(heap_.allocate(kArena / 2), nullptr);
  EXPECT_EQ(heap_.stats().failed_allocations, 4u);
}

TEST_F(HeapTest, DoubleInteriorAndForeignFreesAreRefused) {
  void* a = heap_.allocate(64);
  void* b = heap_.allocate(64);
  void* c = heap_.allocate(64);
  std::byte outside[64];
  ASSERT_TRUE(heap_.free(b).ok());
  EXPECT_EQ(heap_.free(b).error(), Error::kInvalidArgument);  // double, merged into nothing
  ASSERT_TRUE(heap_.free(a).ok());
  EXPECT_EQ(heap_.free(a).error(), Error::kInvalidArgument);  // double, after merging with b
  EXPECT_EQ(heap_.free(static_cast<std::byte*>(c) + 16).error(), Error::kInvalidArgument);
  EXPECT_EQ(heap_.free(static_cast<std::byte*>(c) + 1).error(), Error::kInvalidArgument);
  EXPECT_EQ(heap_.free(outside).error(), Error::kInvalidArgument);
  EXPECT_EQ(heap_.free(arena_).error(), Error::kInvalidArgument);  // the first header itself
  EXPECT_EQ(heap_.stats().refused_frees, 6u);
  EXPECT_TRUE(heap_.free(nullptr).ok());
  expect_consistent();
  EXPECT_EQ(heap_.stats().live_allocations, 1u);
  ASSERT_TRUE(heap_.free(c).ok());
  expect_consistent();
}

TEST_F(HeapTest, OverwrittenHeaderIsRefusedNotTrusted) {
  auto* a = static_cast<std::byte*>(heap_.allocate(64));
  void* b = heap_.allocate(64);
  // An overflow from `a` reaches b's header.
  std::memset(a, 0, heap_.usable_size(a) + 8);
  EXPECT_EQ(heap_.free(b).error(), Error::kInvalidArgument);
  EXPECT_EQ(heap_.stats().refused_frees, 1u);
}

TEST_F(HeapTest, AlignedAllocation) {
  for (std::size_t alignment : {1u, 2u, 8u, 16u, 32u, 64u, 256u, 2048u, 4096u}) {
    for (std::size_t size : {1u, 100u, 3000u}) {
      void* p = heap_.allocate_aligned(alignment, size);
      ASSERT_NE(p, nullptr) << alignment << " " << size;
      EXPECT_TRUE(aligned(p, alignment)) << alignment;
      EXPECT_TRUE(aligned(p, Heap::kAlignment));
      std::memset(p, 0x11, size);
      expect_consistent();
    }
  }
  EXPECT_EQ(heap_.allocate_aligned(48, 10), nullptr);
  EXPECT_EQ(heap_.allocate_aligned(0, 10), nullptr);
  EXPECT_EQ(heap_.stats().failed_allocations, 2u);
  // Aligned blocks free like any other, and the gaps merge back.
  Heap fresh;
  alignas(16) static std::byte memory[64 * 1024];
  ASSERT_TRUE(fresh.add_region(memory).ok());
  std::vector<void*> ps;
  for (int i = 0; i < 8; ++i) ps.push_back(fresh.allocate_aligned(1024, 100));
  for (void* p : ps) ASSERT_TRUE(fresh.free(p).ok());
  EXPECT_TRUE(fresh.check().ok());
  EXPECT_NE(fresh.allocate(60 * 1024), nullptr);
}

TEST_F(HeapTest, CallocZeroesAndChecksOverflow) {
  auto* dirty = static_cast<unsigned char*>(heap_.allocate(1000));
  std::memset(dirty, 0xee, 1000);
  ASSERT_TRUE(heap_.free(dirty).ok());
  auto* p = static_cast<unsigned char*>(heap_.allocate_zeroed(10, 100));
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(p[i], 0) << i;
  EXPECT_EQ(heap_.allocate_zeroed(std::size_t{1} << 33, std::size_t{1} << 33), nullptr);
  EXPECT_EQ(heap_.stats().failed_allocations, 1u);
}

TEST_F(HeapTest, ReallocSemantics) {
  // nullptr: allocates.
  auto* p = static_cast<unsigned char*>(heap_.reallocate(nullptr, 100));
  ASSERT_NE(p, nullptr);
  for (int i = 0; i < 100; ++i) p[i] = static_cast<unsigned char>(i);

  // Growing into a free successor stays in place.
  auto* grown = static_cast<unsigned char*>(heap_.reallocate(p, 1000));
  EXPECT_EQ(grown, p);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(grown[i], i);

  // Shrinking stays in place and returns the tail.
  const std::size_t in_use = heap_.stats().bytes_in_use;
  auto* shrunk = static_cast<unsigned char*>(heap_.reallocate(grown, 50));
  EXPECT_EQ(shrunk, p);
  EXPECT_LT(heap_.stats().bytes_in_use, in_use);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(shrunk[i], i);
  expect_consistent();

  // Blocked by a neighbour: moves, keeping the contents.
  void* neighbour = heap_.allocate(16);
  auto* moved = static_cast<unsigned char*>(heap_.reallocate(shrunk, 5000));
  ASSERT_NE(moved, nullptr);
  EXPECT_NE(moved, shrunk);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(moved[i], i);
  expect_consistent();

  // Failure: nullptr, the original intact and still owned.
  EXPECT_EQ(heap_.reallocate(moved, kArena * 2), nullptr);
  EXPECT_TRUE(heap_.owns(moved));
  for (int i = 0; i < 50; ++i) ASSERT_EQ(moved[i], i);

  // Size 0: frees.
  const std::size_t live = heap_.stats().live_allocations;
  EXPECT_EQ(heap_.reallocate(moved, 0), nullptr);
  EXPECT_EQ(heap_.stats().live_allocations, live - 1);
  EXPECT_FALSE(heap_.owns(moved));

  // Not ours: refused, nothing allocated.
  std::byte outside[32];
  EXPECT_EQ(heap_.reallocate(outside, 10), nullptr);
  EXPECT_EQ(heap_.stats().refused_frees, 1u);
  ASSERT_TRUE(heap_.free(neighbour).ok());
  expect_consistent();
}

TEST_F(HeapTest, StatsTrackBytesAndHighWater) {
  void* a = heap_.allocate(1000);
  void* b = heap_.allocate(3000);
  const std::size_t peak = heap_.stats().bytes_in_use;
  EXPECT_GE(peak, 4000u);
  ASSERT_TRUE(heap_.free(a).ok());
  ASSERT_TRUE(heap_.free(b).ok());
  EXPECT_EQ(heap_.stats().bytes_in_use, 0u);
  EXPECT_EQ(heap_.stats().high_water_bytes, peak);
  EXPECT_EQ(heap_.stats().region_bytes, kArena);  // headers and the end sentinel included
}

TEST(HeapRegionsTest, RegionsAddUpAndAreChecked) {
  Heap heap;
  EXPECT_EQ(heap.allocate(1), nullptr);  // no memory yet
  alignas(16) static std::byte one[4096];
  alignas(16) static std::byte two[8192];
  alignas(16) static std::byte tiny[32];
  EXPECT_EQ(heap.add_region(tiny).error(), Error::kInvalidArgument);
  EXPECT_EQ(heap.add_region({static_cast<std::byte*>(nullptr), 100}).error(),
            Error::kInvalidArgument);
  ASSERT_TRUE(heap.add_region(one).ok());
  ASSERT_TRUE(heap.add_region(two).ok());
  EXPECT_EQ(heap.add_region(std::span(one).subspan(1024)).error(), Error::kInvalidArgument);
  void* big = heap.allocate(6000);  // only fits the second region
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(reinterpret_cast<std::uintptr_t>(big) >= reinterpret_cast<std::uintptr_t>(two));
  void* small = heap.allocate(1000);
  EXPECT_NE(small, nullptr);
  EXPECT_TRUE(heap.check().ok());
  ASSERT_TRUE(heap.free(big).ok());
  ASSERT_TRUE(heap.free(small).ok());
  EXPECT_TRUE(heap.check().ok());
}

// Random allocations, frees, reallocs and aligned allocations against a model:
// every live block keeps its own byte pattern (so an overlap would show), no
// two live blocks overlap, and the heap's structure checks out throughout.
TEST_F(HeapTest, RandomUseMatchesAModel) {
  struct Live {
    std::size_t size;
    unsigned char tag;
  };
  std::map<std::uintptr_t, Live> live;
  std::mt19937 random(12345);
  std::size_t expected_failures = 0;

  auto verify = [&](std::uintptr_t address, const Live& block) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(address);
    for (std::size_t i = 0; i < block.size; ++i) {
      if (bytes[i] != block.tag) return false;
    }
    return true;
  };
  auto add = [&](void* p, std::size_t size, unsigned char tag) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto next = live.lower_bound(address);
    if (next != live.end()) ASSERT_LE(address + size, next->first) << "overlaps the next block";
    if (next != live.begin()) {
      auto prev = std::prev(next);
      ASSERT_LE(prev->first + prev->second.size, address) << "overlaps the previous block";
    }
    std::memset(p, tag, size);
    live[address] = Live{size, tag};
  };

  for (int step = 0; step < 20000; ++step) {
    const unsigned op = random() % 10;
    // Mostly small sizes, sometimes large ones.
    const std::size_t size = (random() % 8 == 0) ? random() % 20000 : random() % 256;
    const auto tag = static_cast<unsigned char>(1 + step % 250);
    if (op < 4 || live.empty()) {
      void* p = heap_.allocate(size);
      if (p == nullptr) {
        ++expected_failures;
        continue;
      }
      add(p, size, tag);
    } else if (op < 5) {
      const std::size_t alignment = std::size_t{16} << (random() % 8);
      void* p = heap_.allocate_aligned(alignment, size);
      if (p == nullptr) {
        ++expected_failures;
        continue;
      }
      ASSERT_TRUE(aligned(p, alignment));
      add(p, size, tag);
    } else if (op < 7) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(random() % live.size()));
      const std::size_t new_size = 1 + size;
      const Live old = it->second;
      ASSERT_TRUE(verify(it->first, old));
      void* p = heap_.reallocate(reinterpret_cast<void*>(it->first), new_size);
      if (p == nullptr) {
        ++expected_failures;
        ASSERT_TRUE(verify(it->first, old));  // untouched
        continue;
      }
      live.erase(it);
      // The common prefix survived the move or resize.
      const auto* bytes = static_cast<const unsigned char*>(p);
      for (std::size_t i = 0; i < std::min(old.size, new_size); ++i) ASSERT_EQ(bytes[i], old.tag);
      add(p, new_size, tag);
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(random() % live.size()));
      ASSERT_TRUE(verify(it->first, it->second)) << "block changed while live";
      ASSERT_TRUE(heap_.free(reinterpret_cast<void*>(it->first)).ok());
      live.erase(it);
    }
    if (step % 64 == 0) ASSERT_TRUE(heap_.check().ok()) << "step " << step;
    ASSERT_EQ(heap_.stats().live_allocations, live.size());
  }
  for (const auto& [address, block] : live) {
    ASSERT_TRUE(verify(address, block));
    ASSERT_TRUE(heap_.free(reinterpret_cast<void*>(address)).ok());
  }
  EXPECT_TRUE(heap_.check().ok());
  EXPECT_EQ(heap_.stats().bytes_in_use, 0u);
  EXPECT_EQ(heap_.stats().failed_allocations, expected_failures);
  EXPECT_GT(expected_failures, 0u);  // the model did reach exhaustion
  EXPECT_EQ(heap_.stats().refused_frees, 0u);
}

}  // namespace
}  // namespace starling::mem
