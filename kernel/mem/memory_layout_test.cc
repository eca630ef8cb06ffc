#include "kernel/mem/memory_layout.h"

#include <gtest/gtest.h>

#include "kernel/mem/sv39.h"

namespace starling::mem {
namespace {

constexpr std::uint8_t kRX = sv39::kRead | sv39::kExecute;
constexpr std::uint8_t kRW = sv39::kRead | sv39::kWrite;

MemoryLayout echo_like() {
  MemoryLayout layout;
  EXPECT_TRUE(layout.add(Region::mapped(0x8020'0000, 0x2'0000, kRX, ".text")).ok());
  EXPECT_TRUE(layout.add(Region::mapped(0x8022'0000, 0x1'0000, sv39::kRead, ".rodata")).ok());
  EXPECT_TRUE(layout
                  .add(Region::guard_page(0x8023'0000, 0x1000,
                                          "stack overflow: guard page below the stack"))
                  .ok());
  EXPECT_TRUE(layout.add(Region::mapped(0x8024'0000, 0x40'0000, kRW, "the heap")).ok());
  EXPECT_TRUE(layout.add(Region::mapped(0x1000'0000, 0x1000, kRW, "uart")).ok());
  return layout;
}

TEST(MemoryLayout, NamesEachFault) {
  const MemoryLayout layout = echo_like();
  auto said = [&](PhysAddr a, Access access) {
    const FaultCause c = layout.describe(a, access);
    return std::string(c.verb) + (c.verb.empty() ? "" : " ") + std::string(c.object);
  };
  EXPECT_EQ(said(0, Access::kRead), "null pointer");
  EXPECT_EQ(said(0x18, Access::kWrite), "null pointer");
  EXPECT_EQ(said(0xF'FFFF, Access::kExecute), "null pointer");
  EXPECT_EQ(said(0x8020'1000, Access::kWrite), "write to .text");
  EXPECT_EQ(said(0x8022'0010, Access::kWrite), "write to .rodata");
  EXPECT_EQ(said(0x8022'0010, Access::kExecute), "execute from .rodata");
  EXPECT_EQ(said(0x8024'1000, Access::kExecute), "execute from the heap");
  EXPECT_EQ(said(0x8023'0FF8, Access::kWrite), "stack overflow: guard page below the stack");
  EXPECT_EQ(said(0x9000'0000, Access::kRead), "unmapped");
  EXPECT_EQ(said(0x1000'1000, Access::kWrite), "unmapped");  // past the device
}

TEST(MemoryLayout, KeepsAddressOrderAndRefusesOverlaps) {
  MemoryLayout layout = echo_like();
  ASSERT_EQ(layout.regions().size(), 5u);
  for (std::size_t i = 1; i < layout.regions().size(); ++i) {
    EXPECT_LT(layout.regions()[i - 1].base, layout.regions()[i].base);
  }
  EXPECT_EQ(layout.add(Region::mapped(0x8021'F000, 0x2000, kRW, "x")).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(layout.add(Region::mapped(0x8030'0000, 0, kRW, "x")).error(), Error::kInvalidArgument);
  EXPECT_EQ(layout.find(0x8022'0000)->name, ".rodata");
  EXPECT_EQ(layout.find(0x8021'FFFF)->name, ".text");
}

TEST(MemoryLayout, ReportsWhenFull) {
  MemoryLayout layout;
  for (std::size_t i = 0; i < MemoryLayout::kCapacity; ++i) {
    ASSERT_TRUE(layout.add(Region::mapped(0x8000'0000 + i * 0x1000, 0x1000, kRW, "p")).ok());
  }
  EXPECT_EQ(layout.add(Region::mapped(0x9000'0000, 0x1000, kRW, "p")).error(), Error::kNoMemory);
}

}  // namespace
}  // namespace starling::mem
