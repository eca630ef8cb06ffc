#include "kernel/mem/page_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace starling::mem {
namespace {

// Host memory standing in for physical RAM (identity "mapping").
class Arena {
 public:
  explicit Arena(std::size_t pages, std::size_t alignment = kPageSize)
      : memory_(static_cast<std::byte*>(std::aligned_alloc(alignment, pages * kPageSize))),
        size_(pages * kPageSize) {}
  ~Arena() { std::free(memory_); }
  PhysRange range() const { return {to_phys(memory_), to_phys(memory_) + size_}; }
  PhysRange range(std::size_t first_page, std::size_t pages) const {
    return {to_phys(memory_) + first_page * kPageSize,
            to_phys(memory_) + (first_page + pages) * kPageSize};
  }

 private:
  std::byte* memory_;
  std::size_t size_;
};

TEST(PageAllocatorTest, CountsPagesAfterItsBitmaps) {
  Arena arena(64);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  EXPECT_EQ(pages.stats().total_pages, 63u);  // one page holds both bitmaps
  EXPECT_EQ(pages.stats().free_pages, 63u);
  EXPECT_EQ(pages.stats().high_water_pages, 0u);
  EXPECT_EQ(pages.init({&range, 1}).error(), Error::kInvalidArgument);  // once only
}

TEST(PageAllocatorTest, RoundsRangesInwardAndSkipsTinyOnes) {
  Arena arena(16);
  PageAllocator pages;
  const PhysRange ranges[] = {
      {arena.range().begin + 100, arena.range().begin + 3 * kPageSize + 5},  // 2 whole pages
      {arena.range().begin + 4 * kPageSize + 1, arena.range().begin + 5 * kPageSize},  // none
      arena.range(8, 8),
  };
  ASSERT_TRUE(pages.init(ranges).ok());
  EXPECT_EQ(pages.stats().total_pages, 2u + 8u - 1u);
}

TEST(PageAllocatorTest, AllocatesWritableDistinctPagesAndFrees) {
  Arena arena(32);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  std::vector<PhysAddr> taken;
  for (int i = 0; i < 10; ++i) {
    Result<PhysAddr> page = pages.allocate(1);
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(*page % kPageSize, 0u);
    EXPECT_TRUE(range.contains(*page));
    std::memset(to_pointer(*page), i, kPageSize);  // ASan: must be ours to write
    taken.push_back(*page);
  }
  for (std::size_t i = 0; i < taken.size(); ++i) {
    EXPECT_EQ(static_cast<int>(*to_pointer(taken[i])), static_cast<int>(i));  // no overlap
  }
  EXPECT_EQ(pages.stats().free_pages, pages.stats().total_pages - 10);
  for (PhysAddr page : taken) EXPECT_TRUE(pages.free(page).ok());
  EXPECT_EQ(pages.stats().free_pages, pages.stats().total_pages);
  EXPECT_EQ(pages.stats().high_water_pages, 10u);
}

TEST(PageAllocatorTest, ContiguousRunsAndAlignment) {
  Arena arena(256, 64 * kPageSize);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  Result<PhysAddr> one = pages.allocate(1);
  ASSERT_TRUE(one.ok());
  Result<PhysAddr> aligned = pages.allocate(3, 16 * kPageSize);
  ASSERT_TRUE(aligned.ok());
  EXPECT_EQ(*aligned % (16 * kPageSize), 0u);
  EXPECT_EQ(pages.allocation_pages(*aligned), 3u);
  Result<PhysAddr> huge_aligned = pages.allocate(1, 64 * kPageSize);
  ASSERT_TRUE(huge_aligned.ok());
  EXPECT_EQ(*huge_aligned % (64 * kPageSize), 0u);
  // Sub-page alignments mean a page.
  Result<PhysAddr> small_aligned = pages.allocate(2, 64);
  ASSERT_TRUE(small_aligned.ok());
  EXPECT_EQ(*small_aligned % kPageSize, 0u);
  EXPECT_EQ(pages.allocate(1, 3 * kPageSize).error(), Error::kInvalidArgument);
  EXPECT_EQ(pages.allocate(0).error(), Error::kInvalidArgument);
  EXPECT_EQ(pages.stats().failed_allocations, 0u);
}

TEST(PageAllocatorTest, ExhaustionIsCountedAndRecovers) {
  Arena arena(16);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  const std::size_t total = pages.stats().total_pages;
  EXPECT_EQ(pages.allocate(total + 1).error(), Error::kNoMemory);
  EXPECT_EQ(pages.stats().failed_allocations, 1u);
  EXPECT_EQ(pages.stats().free_pages, total);  // the failure took nothing

  Result<PhysAddr> all = pages.allocate(total);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(pages.allocate(1).error(), Error::kNoMemory);
  EXPECT_EQ(pages.stats().failed_allocations, 2u);
  EXPECT_EQ(pages.stats().free_pages, 0u);
  ASSERT_TRUE(pages.free(*all).ok());
  EXPECT_TRUE(pages.allocate(total).ok());  // whole again
  EXPECT_EQ(pages.stats().high_water_pages, total);
}

TEST(PageAllocatorTest, FragmentationNeedsAContiguousRun) {
  Arena arena(16);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  std::vector<PhysAddr> singles;
  for (std::size_t i = 0; i < pages.stats().total_pages; ++i) singles.push_back(*pages.allocate(1));
  for (std::size_t i = 0; i < singles.size(); i += 2) ASSERT_TRUE(pages.free(singles[i]).ok());
  // Half the pages are free, but no two are adjacent.
  EXPECT_EQ(pages.allocate(2).error(), Error::kNoMemory);
  ASSERT_TRUE(pages.free(singles[1]).ok());
  Result<PhysAddr> pair = pages.allocate(3);
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(*pair, singles[0]);
}

TEST(PageAllocatorTest, DoubleForeignAndInteriorFreesAreRefused) {
  Arena arena(32);
  Arena elsewhere(2);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  Result<PhysAddr> run = pages.allocate(4);
  ASSERT_TRUE(run.ok());
  Result<PhysAddr> next = pages.allocate(2);
  ASSERT_TRUE(next.ok());
  const PageAllocatorStats before = pages.stats();

  EXPECT_EQ(pages.free(*run + kPageSize).error(), Error::kInvalidArgument);  // interior
  EXPECT_EQ(pages.free(*run + 8).error(), Error::kInvalidArgument);          // misaligned
  EXPECT_EQ(pages.free(elsewhere.range().begin).error(), Error::kInvalidArgument);
  EXPECT_EQ(pages.free(range.begin).error(), Error::kInvalidArgument);  // the bitmaps' page
  EXPECT_EQ(pages.stats().refused_frees, 4u);
  EXPECT_EQ(pages.stats().free_pages, before.free_pages);

  ASSERT_TRUE(pages.free(*run).ok());
  EXPECT_EQ(pages.free(*run).error(), Error::kInvalidArgument);  // double
  EXPECT_EQ(pages.stats().refused_frees, 5u);
  // The neighbour run is intact: exactly its 2 pages come back.
  EXPECT_EQ(pages.allocation_pages(*next), 2u);
  ASSERT_TRUE(pages.free(*next).ok());
  EXPECT_EQ(pages.stats().free_pages, pages.stats().total_pages);
}

TEST(PageAllocatorTest, AdjacentRunsKeepTheirOwnLengths) {
  Arena arena(32);
  PageAllocator pages;
  const PhysRange range = arena.range();
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  const PhysAddr a = *pages.allocate(3);
  const PhysAddr b = *pages.allocate(5);
  EXPECT_EQ(b, a + 3 * kPageSize);
  EXPECT_EQ(pages.allocation_pages(a), 3u);
  EXPECT_EQ(pages.allocation_pages(b), 5u);
  ASSERT_TRUE(pages.free(a).ok());
  EXPECT_EQ(pages.allocation_pages(b), 5u);
  EXPECT_EQ(pages.stats().free_pages, pages.stats().total_pages - 5);
}

TEST(PageAllocatorTest, SeveralRegionsAndRandomUseMatchAModel) {
  Arena arena(200);
  PageAllocator pages;
  const PhysRange ranges[] = {arena.range(0, 50), arena.range(60, 100), arena.range(170, 30)};
  ASSERT_TRUE(pages.init(ranges).ok());
  std::mt19937 random(7);
  struct Live {
    PhysAddr address;
    std::size_t pages;
    unsigned char tag;
  };
  std::vector<Live> live;
  std::size_t in_use = 0;
  std::size_t failures = 0;
  for (int step = 0; step < 5000; ++step) {
    if (live.empty() || random() % 3 != 0) {
      const std::size_t count = 1 + random() % 8;
      const std::size_t alignment = kPageSize << (random() % 3);
      Result<PhysAddr> a = pages.allocate(count, alignment);
      if (!a) {
        ++failures;
        continue;
      }
      ASSERT_EQ(*a % alignment, 0u);
      bool inside = false;
      for (const PhysRange& r : ranges)
        inside |= r.contains(*a) && r.contains(*a + count * kPageSize - 1);
      ASSERT_TRUE(inside);
      const auto tag = static_cast<unsigned char>(step);
      std::memset(to_pointer(*a), tag, count * kPageSize);
      live.push_back({*a, count, tag});
      in_use += count;
    } else {
      const std::size_t i = random() % live.size();
      // Nobody else wrote into this run while it was live.
      for (std::size_t b = 0; b < live[i].pages * kPageSize; b += 512) {
        ASSERT_EQ(static_cast<unsigned char>(to_pointer(live[i].address)[b]), live[i].tag);
      }
      ASSERT_TRUE(pages.free(live[i].address).ok());
      in_use -= live[i].pages;
      live.erase(live.begin() + static_cast<long>(i));
    }
    ASSERT_EQ(pages.stats().total_pages - pages.stats().free_pages, in_use);
  }
  EXPECT_EQ(pages.stats().failed_allocations, failures);
  EXPECT_GT(failures, 0u);  // the loop did reach exhaustion
}

}  // namespace
}  // namespace starling::mem
