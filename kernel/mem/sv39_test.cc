#include "kernel/mem/sv39.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace starling::mem::sv39 {
namespace {

// Table pages for the builder: 4 KiB-aligned, counted, limited.
class Pool {
 public:
  explicit Pool(std::size_t limit) : limit_(limit), pages_(limit) {}
  TableSource source() { return {.allocate = &Pool::take, .context = this}; }
  std::size_t used() const { return used_; }

 private:
  struct alignas(4096) Page {
    std::uint64_t entries[kEntries];
  };
  static std::uint64_t* take(void* context) {
    auto& pool = *static_cast<Pool*>(context);
    if (pool.used_ == pool.limit_) return nullptr;
    return pool.pages_[pool.used_++].entries;
  }
  std::size_t limit_;
  std::size_t used_ = 0;
  std::vector<Page> pages_;
};

constexpr std::uint8_t kRX = kRead | kExecute;
constexpr std::uint8_t kRW = kRead | kWrite;

TEST(Sv39, PermissionsPerRange) {
  Pool pool(16);
  PageTables tables(pool.source());
  ASSERT_TRUE(tables.map(0x8020'0000, 0x2'0000, kRX).ok());    // .text
  ASSERT_TRUE(tables.map(0x8022'0000, 0x1'0000, kRead).ok());  // .rodata
  ASSERT_TRUE(tables.map(0x8023'0000, 0x4'0000, kRW).ok());    // .data, .bss
  EXPECT_EQ(tables.lookup(0x8020'0000)->permissions, kRX);
  EXPECT_EQ(tables.lookup(0x8021'FFFF)->permissions, kRX);
  EXPECT_EQ(tables.lookup(0x8022'0000)->permissions, kRead);
  EXPECT_EQ(tables.lookup(0x8026'FFF8)->permissions, kRW);
  EXPECT_FALSE(tables.lookup(0x8027'0000).has_value());  // past the end: unmapped
  EXPECT_FALSE(tables.lookup(0x801F'F000).has_value());  // before it too
  EXPECT_FALSE(tables.lookup(0).has_value());            // page 0
  EXPECT_EQ(tables.lookup(0x8020'0000)->page_size, k4KiB);
}

TEST(Sv39, LargestPagesTheAlignmentAllows) {
  Pool pool(16);
  PageTables tables(pool.source());
  // 4 KiB short of 2 MiB alignment, then 1 GiB + 2 MiB + 8 KiB: 1 page of
  // 4 KiB up to 0x4020_0000, 511 megapages to 0x8000_0000, one gigapage,
  // one megapage, two pages.
  const PhysAddr base = 0x401F'F000;
  const std::uint64_t size = 0x1000 + (k1GiB - k2MiB) + k1GiB + k2MiB + 0x2000;
  ASSERT_TRUE(tables.map(base, size, kRW).ok());
  EXPECT_EQ(tables.counts().pages_4k, 3u);
  EXPECT_EQ(tables.counts().pages_2m, 511u + 1u);
  EXPECT_EQ(tables.counts().pages_1g, 1u);
  EXPECT_EQ(tables.lookup(base)->page_size, k4KiB);
  EXPECT_EQ(tables.lookup(0x4020'0000)->page_size, k2MiB);
  EXPECT_EQ(tables.lookup(0x8000'0000)->page_size, k1GiB);
  EXPECT_EQ(tables.lookup(0xC000'0000)->page_size, k2MiB);
  EXPECT_EQ(tables.lookup(0xC020'1000)->page_size, k4KiB);
  EXPECT_FALSE(tables.lookup(base + size).has_value());
  // Root, the level-1 tables for 1..2 GiB and 3..4 GiB, and the level-0
  // tables at both ends.
  EXPECT_EQ(tables.counts().tables, 5u);
  EXPECT_EQ(pool.used(), 5u);
  EXPECT_EQ(page_size_at(0x8000'0000, k1GiB - 1), k2MiB);
  EXPECT_EQ(page_size_at(0x8000'1000, k1GiB), k4KiB);
}

TEST(Sv39, RefusesWhatItCannotMapSafely) {
  Pool pool(16);
  PageTables tables(pool.source());
  EXPECT_EQ(tables.map(0x8000'0800, 0x1000, kRW).error(), Error::kInvalidArgument);  // unaligned
  EXPECT_EQ(tables.map(0x8000'0000, 0x800, kRW).error(), Error::kInvalidArgument);   // size
  EXPECT_EQ(tables.map(0x8000'0000, 0, kRW).error(), Error::kInvalidArgument);
  EXPECT_EQ(tables.map(0x8000'0000, 0x1000, 0).error(), Error::kInvalidArgument);
  EXPECT_EQ(tables.map(0x8000'0000, 0x1000, kRead | kWrite | kExecute).error(),
            Error::kInvalidArgument);  // W^X
  EXPECT_EQ(tables.map(0x8000'0000, 0x1000, kWrite).error(), Error::kInvalidArgument);
  EXPECT_EQ(tables.map(kAddressLimit, 0x1000, kRW).error(), Error::kInvalidArgument);
  EXPECT_EQ(tables.map(kAddressLimit - 0x1000, 0x2000, kRW).error(), Error::kInvalidArgument);
  EXPECT_EQ(tables.satp(), 0u);  // nothing mapped
}

TEST(Sv39, OverlapsAreRefusedAndChangeNothing) {
  Pool pool(16);
  PageTables tables(pool.source());
  ASSERT_TRUE(tables.map(0x8040'0000, k2MiB, kRW).ok());  // one megapage
  ASSERT_TRUE(tables.map(0x8070'0000, 0x1000, kRead).ok());
  const Counts before = tables.counts();
  // A page inside the megapage; a range running into it; a megapage over
  // the 4 KiB page's table; the same range again.
  EXPECT_EQ(tables.map(0x8041'0000, 0x1000, kRead).error(), Error::kBusy);
  EXPECT_EQ(tables.map(0x803F'F000, 0x2000, kRead).error(), Error::kBusy);
  EXPECT_EQ(tables.map(0x8060'0000, k2MiB, kRW).error(), Error::kBusy);
  EXPECT_EQ(tables.map(0x8040'0000, k2MiB, kRW).error(), Error::kBusy);
  // Nothing of the refused ranges got mapped, not even their free parts.
  EXPECT_FALSE(tables.lookup(0x803F'F000).has_value());
  EXPECT_FALSE(tables.lookup(0x8060'0000).has_value());
  EXPECT_EQ(tables.counts().pages_4k, before.pages_4k);
  EXPECT_EQ(tables.counts().pages_2m, before.pages_2m);
  // Next to them is fine.
  EXPECT_TRUE(tables.map(0x803F'F000, 0x1000, kRead).ok());
}

TEST(Sv39, RunningOutOfTablePagesIsReported) {
  Pool pool(2);  // the root and one more
  PageTables tables(pool.source());
  EXPECT_EQ(tables.map(0x8000'0000, 0x1000, kRW).error(), Error::kNoMemory);
  Pool none(0);
  PageTables empty(none.source());
  EXPECT_EQ(empty.map(0x8000'0000, 0x1000, kRW).error(), Error::kNoMemory);
}

TEST(Sv39, SatpNamesSv39AndTheRoot) {
  Pool pool(4);
  PageTables tables(pool.source());
  ASSERT_TRUE(tables.map(0x8000'0000, k1GiB, kRW).ok());
  const std::uint64_t satp = tables.satp();
  EXPECT_EQ(satp >> 60, 8u);                 // MODE = Sv39
  EXPECT_EQ((satp >> 44) & 0xFFFF, 0u);      // ASID 0
  EXPECT_NE(satp & ((1ull << 44) - 1), 0u);  // the root's page number
  EXPECT_EQ(tables.counts().tables, 1u);     // a gigapage needs the root only
}

}  // namespace
}  // namespace starling::mem::sv39
