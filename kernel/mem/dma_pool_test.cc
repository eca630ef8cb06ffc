#include "kernel/mem/dma_pool.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace starling::mem {
namespace {

constexpr std::size_t kCount = 8;

class DmaPoolTest : public ::testing::Test {
 protected:
  // A device-visible window: the "physical" address differs from the CPU
  // pointer, as it would behind an IOMMU or an offset bus.
  static constexpr PhysAddr kPhysBase = 0x4000'0000;

  DmaPoolTest() : memory_(static_cast<std::byte*>(std::aligned_alloc(4096, kBytes))) {}
  ~DmaPoolTest() override { std::free(memory_); }

  DmaRegion region() const { return {memory_, kPhysBase, kBytes}; }

  static constexpr std::size_t kBytes = 64 * 1024;
  std::byte* memory_;
  std::array<std::uint32_t, DmaPool::metadata_words(kCount)> metadata_{};
};

TEST_F(DmaPoolTest, BuffersAreAlignedDistinctAndMapped) {
  DmaPool pool;
  ASSERT_TRUE(
      pool.init(region(), {.buffer_size = 1536, .alignment = 2048, .count = kCount}, metadata_)
          .ok());
  EXPECT_EQ(pool.stats().capacity, kCount);
  std::vector<DmaBuffer> buffers;
  for (std::size_t i = 0; i < kCount; ++i) {
    Result<DmaBuffer> b = pool.allocate();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->phys() % 2048, 0u);
    EXPECT_EQ(b->size(), 1536u);
    // The device address and the CPU pointer name the same byte.
    EXPECT_EQ(b->phys() - kPhysBase, static_cast<std::uint64_t>(b->cpu() - memory_));
    std::memset(b->cpu(), static_cast<int>(i), b->size());
    buffers.push_back(*b);
  }
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(static_cast<std::size_t>(buffers[i].bytes()[0]), i);
    EXPECT_EQ(static_cast<std::size_t>(buffers[i].bytes().back()), i);
    EXPECT_EQ(pool.from_phys(buffers[i].phys())->cpu(), buffers[i].cpu());
    EXPECT_EQ(pool.from_cpu(buffers[i].cpu())->phys(), buffers[i].phys());
  }
  EXPECT_FALSE(pool.from_phys(buffers[0].phys() + 64));
  EXPECT_FALSE(pool.from_cpu(buffers[0].cpu() + 1));
}

TEST_F(DmaPoolTest, UnalignedRegionStartIsSkipped) {
  DmaPool pool;
  DmaRegion r = region();
  r.cpu += 100;
  r.phys += 100;
  r.size -= 100;
  ASSERT_TRUE(pool.init(r, {.buffer_size = 60, .alignment = 64, .count = kCount}, metadata_).ok());
  Result<DmaBuffer> b = pool.allocate();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->phys(), kPhysBase + 128);
  EXPECT_EQ(b->cpu(), memory_ + 128);
}

TEST_F(DmaPoolTest, ExhaustionCountedAndHighWater) {
  DmaPool pool;
  ASSERT_TRUE(
      pool.init(region(), {.buffer_size = 64, .alignment = 64, .count = kCount}, metadata_).ok());
  std::vector<DmaBuffer> buffers;
  for (std::size_t i = 0; i < kCount; ++i) buffers.push_back(*pool.allocate());
  EXPECT_EQ(pool.allocate().error(), Error::kNoMemory);
  EXPECT_EQ(pool.allocate().error(), Error::kNoMemory);
  EXPECT_EQ(pool.stats().failed_allocations, 2u);
  EXPECT_EQ(pool.stats().in_use, kCount);
  for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(pool.free(buffers[i]).ok());
  EXPECT_EQ(pool.stats().in_use, kCount - 3);
  EXPECT_EQ(pool.stats().high_water, kCount);
  // LIFO: the buffer freed last comes back first (still warm in cache).
  EXPECT_EQ(pool.allocate()->phys(), buffers[2].phys());
}

TEST_F(DmaPoolTest, DoubleAndForeignFreesAreRefused) {
  DmaPool pool;
  DmaPool other;
  std::array<std::uint32_t, DmaPool::metadata_words(kCount)> other_metadata{};
  DmaRegion second_half = region();
  second_half.cpu += kBytes / 2;
  second_half.phys += kBytes / 2;
  second_half.size = kBytes / 2;
  DmaRegion first_half = region();
  first_half.size = kBytes / 2;
  ASSERT_TRUE(
      pool.init(first_half, {.buffer_size = 256, .alignment = 256, .count = kCount}, metadata_)
          .ok());
  ASSERT_TRUE(other
                  .init(second_half, {.buffer_size = 256, .alignment = 256, .count = kCount},
                        other_metadata)
                  .ok());
  const DmaBuffer mine = *pool.allocate();
  const DmaBuffer theirs = *other.allocate();

  EXPECT_EQ(pool.free(theirs).error(), Error::kInvalidArgument);
  EXPECT_EQ(pool.free(DmaBuffer(mine.cpu() + 8, mine.phys() + 8, 256, 0)).error(),
            Error::kInvalidArgument);
  // Right device address, wrong CPU pointer: a forged or mixed-up buffer.
  EXPECT_EQ(pool.free(DmaBuffer(theirs.cpu(), mine.phys(), 256, mine.index())).error(),
            Error::kInvalidArgument);
  const DmaBuffer never_allocated = *pool.from_phys(mine.phys() + 256);
  EXPECT_EQ(pool.free(never_allocated).error(), Error::kInvalidArgument);
  EXPECT_EQ(pool.stats().refused_frees, 4u);
  EXPECT_EQ(pool.stats().in_use, 1u);

  ASSERT_TRUE(pool.free(mine).ok());
  EXPECT_EQ(pool.free(mine).error(), Error::kInvalidArgument);
  EXPECT_EQ(pool.stats().refused_frees, 5u);
  EXPECT_EQ(pool.stats().in_use, 0u);
  // The stack was not corrupted: exactly kCount distinct buffers come out.
  std::vector<PhysAddr> seen;
  for (std::size_t i = 0; i < kCount; ++i) {
    const PhysAddr p = pool.allocate()->phys();
    for (PhysAddr q : seen) EXPECT_NE(p, q);
    seen.push_back(p);
  }
  EXPECT_FALSE(pool.allocate().ok());
}

TEST_F(DmaPoolTest, DeviceOverwritingBuffersCannotCorruptThePool) {
  DmaPool pool;
  ASSERT_TRUE(
      pool.init(region(), {.buffer_size = 128, .alignment = 64, .count = kCount}, metadata_).ok());
  std::vector<DmaBuffer> buffers;
  for (std::size_t i = 0; i < kCount; ++i) buffers.push_back(*pool.allocate());
  for (const DmaBuffer& b : buffers) ASSERT_TRUE(pool.free(b).ok());
  // A "device" sprays every buffer while they are free.
  for (const DmaBuffer& b : buffers) std::memset(b.cpu(), 0xff, b.size());
  for (std::size_t i = 0; i < kCount; ++i) {
    Result<DmaBuffer> b = pool.allocate();
    ASSERT_TRUE(b.ok());
    EXPECT_TRUE(pool.from_phys(b->phys()));
  }
}

TEST_F(DmaPoolTest, RejectsBadShapesAndRegionsTooSmall) {
  DmaPool pool;
  EXPECT_EQ(
      pool.init(region(), {.buffer_size = 64, .alignment = 48, .count = kCount}, metadata_).error(),
      Error::kInvalidArgument);
  EXPECT_EQ(
      pool.init(region(), {.buffer_size = 0, .alignment = 64, .count = kCount}, metadata_).error(),
      Error::kInvalidArgument);
  EXPECT_EQ(pool.init(region(), {.buffer_size = 64, .alignment = 64, .count = kCount},
                      std::span(metadata_).first(kCount))
                .error(),
            Error::kInvalidArgument);
  // 8 x 16 KiB do not fit 64 KiB.
  EXPECT_EQ(pool.init(region(), {.buffer_size = 16384, .alignment = 64, .count = kCount}, metadata_)
                .error(),
            Error::kNoMemory);
  // A huge stride must not wrap the size check.
  EXPECT_EQ(
      pool.init(region(), {.buffer_size = ~std::size_t{0} / 2, .alignment = 64, .count = kCount},
                metadata_)
          .error(),
      Error::kNoMemory);
  EXPECT_FALSE(pool.allocate().ok());  // still uninitialised
}

TEST(DmaPoolPagesTest, TakesAlignedPagesFromThePageAllocator) {
  constexpr std::size_t kPages = 64;
  auto* memory = static_cast<std::byte*>(std::aligned_alloc(kPageSize, kPages * kPageSize));
  PageAllocator pages;
  const PhysRange range{to_phys(memory), to_phys(memory) + kPages * kPageSize};
  ASSERT_TRUE(pages.init({&range, 1}).ok());
  const std::size_t free_before = pages.stats().free_pages;

  DmaPool pool;
  std::array<std::uint32_t, DmaPool::metadata_words(16)> metadata{};
  ASSERT_TRUE(
      pool.init(pages, {.buffer_size = 2048, .alignment = 2048, .count = 16}, metadata).ok());
  EXPECT_EQ(pages.stats().free_pages, free_before - 8);  // 16 x 2 KiB
  for (int i = 0; i < 16; ++i) {
    Result<DmaBuffer> b = pool.allocate();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->phys() % 2048, 0u);
    EXPECT_EQ(to_pointer(b->phys()), b->cpu());  // identity-mapped
    std::memset(b->cpu(), 0xab, b->size());
  }
  // Too big for what is left: the pages are not leaked on failure.
  DmaPool big;
  std::array<std::uint32_t, DmaPool::metadata_words(1)> one{};
  EXPECT_EQ(big.init(pages, {.buffer_size = 1 << 20, .alignment = 64, .count = 1}, one).error(),
            Error::kNoMemory);
  EXPECT_EQ(pages.stats().free_pages, free_before - 8);
  std::free(memory);
}

}  // namespace
}  // namespace starling::mem
