#include "kernel/mem/range_set.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling::mem {
namespace {

std::vector<PhysRange> list(const RangeSet& set) {
  return {set.ranges().begin(), set.ranges().end()};
}

TEST(RangeSetTest, FromBaseSizeRejectsWrap) {
  EXPECT_EQ(PhysRange::from_base_size(0x1000, 0x1000), (PhysRange{0x1000, 0x2000}));
  EXPECT_FALSE(PhysRange::from_base_size(~0ull - 10, 11));
  EXPECT_TRUE(PhysRange::from_base_size(~0ull - 10, 10));
}

TEST(RangeSetTest, AddSortsAndMergesOverlappingAndTouching) {
  RangeSet set;
  ASSERT_TRUE(set.add({0x5000, 0x6000}).ok());
  ASSERT_TRUE(set.add({0x1000, 0x2000}).ok());
  ASSERT_TRUE(set.add({0x3000, 0x4000}).ok());
  EXPECT_EQ(list(set),
            (std::vector<PhysRange>{{0x1000, 0x2000}, {0x3000, 0x4000}, {0x5000, 0x6000}}));
  ASSERT_TRUE(set.add({0x2000, 0x3000}).ok());  // touches both neighbours
  EXPECT_EQ(list(set), (std::vector<PhysRange>{{0x1000, 0x4000}, {0x5000, 0x6000}}));
  ASSERT_TRUE(set.add({0x0800, 0x5800}).ok());
  EXPECT_EQ(list(set), (std::vector<PhysRange>{{0x0800, 0x6000}}));
  ASSERT_TRUE(set.add({0x7000, 0x7000}).ok());  // empty: ignored
  EXPECT_EQ(set.size(), 1u);
  EXPECT_EQ(set.total_bytes(), 0x5800u);
}

TEST(RangeSetTest, SubtractSplitsTrimsAndRemoves) {
  RangeSet set;
  ASSERT_TRUE(set.add({0x1000, 0x9000}).ok());
  ASSERT_TRUE(set.add({0xa000, 0xc000}).ok());
  ASSERT_TRUE(set.subtract({0x2000, 0x3000}).ok());
  EXPECT_EQ(list(set),
            (std::vector<PhysRange>{{0x1000, 0x2000}, {0x3000, 0x9000}, {0xa000, 0xc000}}));
  ASSERT_TRUE(set.subtract({0x8000, 0xb000}).ok());  // trims two ranges
  EXPECT_EQ(list(set),
            (std::vector<PhysRange>{{0x1000, 0x2000}, {0x3000, 0x8000}, {0xb000, 0xc000}}));
  ASSERT_TRUE(set.subtract({0x0, 0x2800}).ok());  // removes one entirely
  EXPECT_EQ(list(set), (std::vector<PhysRange>{{0x3000, 0x8000}, {0xb000, 0xc000}}));
  EXPECT_TRUE(set.contains(0x3000));
  EXPECT_FALSE(set.contains(0x8000));
  EXPECT_TRUE(set.overlaps({0x7fff, 0x9000}));
  EXPECT_FALSE(set.overlaps({0x8000, 0xb000}));
}

TEST(RangeSetTest, FullSetRefusesWithoutChanging) {
  RangeSet set;
  for (std::uint64_t i = 0; i < RangeSet::kCapacity; ++i) {
    ASSERT_TRUE(set.add({i * 0x10000, i * 0x10000 + 0x1000}).ok());
  }
  EXPECT_EQ(set.add({0xf0000000, 0xf0001000}).error(), Error::kNoMemory);
  EXPECT_EQ(set.subtract({0x100, 0x200}).error(), Error::kNoMemory);  // would split
  EXPECT_EQ(set.size(), RangeSet::kCapacity);
  EXPECT_EQ(set.total_bytes(), RangeSet::kCapacity * 0x1000);
  // Merging into an existing range needs no slot.
  EXPECT_TRUE(set.add({0x1000, 0x2000}).ok());
  EXPECT_TRUE(set.subtract({0x0, 0x100}).ok());  // trims only
}

}  // namespace
}  // namespace starling::mem
