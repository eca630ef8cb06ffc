// Host test: the PLIC driver against plain memory standing in for the
// register block. Offsets come from the PLIC spec / docs/hardware/jh7110.md §3,
// docs/hardware/qemu-virt.md §3, written out here rather than taken from the driver, so a wrong
// constant fails.

#include "drivers/irq/plic.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace starling {
namespace {

// Large enough for context 8's claim register (0x200000 + 0x1000 * 8 + 4).
struct FakePlic {
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(0x20A000 / 4, 0xDEADBEEF);

  std::uintptr_t base() { return reinterpret_cast<std::uintptr_t>(words.data()); }
  std::uint32_t& at(std::uintptr_t offset) { return words[offset / 4]; }
  std::uint32_t& priority(std::uint32_t source) { return at(4 * source); }
  std::uint32_t& enable_word(std::uint32_t context, std::uint32_t word) {
    return at(0x2000 + 0x80 * context + 4 * word);
  }
  std::uint32_t& threshold(std::uint32_t context) { return at(0x200000 + 0x1000 * context); }
  std::uint32_t& claim(std::uint32_t context) { return at(0x200004 + 0x1000 * context); }
};

TEST(PlicTest, QemuVirtContextOneAddresses) {
  // docs/hardware/qemu-virt.md §3: hart 0 S-mode enable 0x0C002080, threshold 0x0C201000,
  // claim 0x0C201004 (base 0x0C000000).
  FakePlic dev;
  Plic plic({dev.base(), 1, 95});
  plic.enable(10);
  EXPECT_EQ(dev.at(0x2080), 0xDEADBEEFu | (1u << 10));
  plic.set_threshold(0);
  EXPECT_EQ(dev.at(0x201000), 0u);
  dev.at(0x201004) = 10;
  EXPECT_EQ(plic.claim(), 10u);
  dev.at(0x201004) = 0;
  plic.complete(10);
  EXPECT_EQ(dev.at(0x201004), 10u);
}

TEST(PlicTest, InitClearsOnlyItsContext) {
  FakePlic dev;
  Plic plic({dev.base(), 2, 136});  // JH7110 hart 1 S-mode, riscv,ndev = 136
  plic.init();
  for (std::uint32_t word = 0; word <= 136 / 32; ++word) {
    EXPECT_EQ(dev.enable_word(2, word), 0u) << "word " << word;
    EXPECT_EQ(dev.enable_word(1, word), 0xDEADBEEFu) << "hart 1 M-mode word " << word;
    EXPECT_EQ(dev.enable_word(3, word), 0xDEADBEEFu) << "hart 2 M-mode word " << word;
  }
  for (std::uint32_t source = 1; source <= 136; ++source) {
    EXPECT_EQ(dev.priority(source), 0u) << "source " << source;
  }
  EXPECT_EQ(dev.priority(0), 0xDEADBEEFu);    // source 0 does not exist
  EXPECT_EQ(dev.priority(137), 0xDEADBEEFu);  // past riscv,ndev
  EXPECT_EQ(dev.threshold(2), 0u);
  EXPECT_EQ(dev.threshold(1), 0xDEADBEEFu);
}

TEST(PlicTest, EnableAndDisableTouchOneBit) {
  FakePlic dev;
  Plic plic({dev.base(), 2, 136});
  dev.enable_word(2, 1) = 0;
  plic.enable(32);  // JH7110 UART0: word 1, bit 0
  EXPECT_EQ(dev.enable_word(2, 1), 1u);
  EXPECT_TRUE(plic.enabled(32));
  plic.enable(63);
  EXPECT_EQ(dev.enable_word(2, 1), 0x80000001u);
  plic.disable(32);
  EXPECT_EQ(dev.enable_word(2, 1), 0x80000000u);
  EXPECT_FALSE(plic.enabled(32));
  EXPECT_TRUE(plic.enabled(63));
}

TEST(PlicTest, PriorityPerSource) {
  FakePlic dev;
  Plic plic({dev.base(), 1, 95});
  plic.set_priority(10, 1);
  plic.set_priority(95, 7);
  EXPECT_EQ(dev.priority(10), 1u);
  EXPECT_EQ(dev.priority(95), 7u);
  EXPECT_EQ(dev.priority(9), 0xDEADBEEFu);
}

TEST(PlicTest, InvalidSourcesAreIgnored) {
  FakePlic dev;
  Plic plic({dev.base(), 1, 95});
  EXPECT_FALSE(plic.valid(0));
  EXPECT_TRUE(plic.valid(1));
  EXPECT_TRUE(plic.valid(95));
  EXPECT_FALSE(plic.valid(96));
  plic.set_priority(0, 5);
  plic.set_priority(96, 5);
  plic.enable(96);
  plic.enable(0);
  EXPECT_EQ(dev.priority(0), 0xDEADBEEFu);
  EXPECT_EQ(dev.priority(96), 0xDEADBEEFu);
  EXPECT_EQ(dev.enable_word(1, 0), 0xDEADBEEFu);
  EXPECT_EQ(dev.enable_word(1, 3), 0xDEADBEEFu);
  EXPECT_FALSE(plic.enabled(96));
}

TEST(PlicTest, ClaimAndCompleteUseTheContextsRegister) {
  FakePlic dev;
  Plic plic({dev.base(), 8, 136});  // JH7110 hart 4 S-mode
  dev.claim(8) = 7;                 // GMAC0 macirq
  EXPECT_EQ(plic.claim(), 7u);
  dev.claim(8) = 0;
  plic.complete(7);
  EXPECT_EQ(dev.claim(8), 7u);
  EXPECT_EQ(dev.claim(7), 0xDEADBEEFu);
}

}  // namespace
}  // namespace starling
