#include "drivers/dwmac/model/dma_region.h"

#include <cstring>

#include <gtest/gtest.h>

namespace starling::model {
namespace {

// docs/hardware/dwmac.md §5: descriptor address words are 32-bit, so DMA memory must sit
// below 4 GiB and be addressable by its own numeric address.
TEST(DmaRegion, LiesBelowFourGibAndIsUsableAtItsBusAddress) {
  auto region = DmaRegion::create(64 * 1024);
  ASSERT_NE(region, nullptr);
  EXPECT_LT(region->base() + region->size(), 0x1'0000'0000ull);
  EXPECT_GE(region->size(), 64u * 1024);
  auto* p = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(region->base()));
  EXPECT_EQ(p, region->data());
  std::memset(p, 0xA5, region->size());
  EXPECT_EQ(region->data()[region->size() - 1], std::byte{0xA5});
}

TEST(DmaRegion, TwoRegionsDoNotOverlap) {
  auto a = DmaRegion::create(4096);
  auto b = DmaRegion::create(4096);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(a->contains(b->base(), 1));
  EXPECT_FALSE(b->contains(a->base(), 1));
}

TEST(DmaRegion, ContainsChecksBothEndsWithoutOverflow) {
  auto region = DmaRegion::create(4096);
  ASSERT_NE(region, nullptr);
  const std::uint64_t base = region->base();
  EXPECT_TRUE(region->contains(base, region->size()));
  EXPECT_TRUE(region->contains(base + region->size() - 16, 16));
  EXPECT_FALSE(region->contains(base + region->size() - 15, 16));
  EXPECT_FALSE(region->contains(base - 1, 2));
  EXPECT_FALSE(region->contains(base + 8, ~std::size_t{0}));
  EXPECT_FALSE(region->contains(0, 16));
}

}  // namespace
}  // namespace starling::model
