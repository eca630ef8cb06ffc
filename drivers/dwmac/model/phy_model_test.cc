#include "drivers/dwmac/model/phy_model.h"

#include <gtest/gtest.h>

namespace starling::model {
namespace {

PhyModel::Options with(void (*change)(PhyModel::Options&)) {
  PhyModel::Options options;
  change(options);
  return options;
}

constexpr std::uint16_t kBmsrLink = 1u << 2;        // docs/hardware/dwmac.md §8.2 "1 BMSR: 2 link"
constexpr std::uint16_t kBmsrAnComplete = 1u << 5;  // "5 AN complete"
constexpr std::uint16_t kBmcrReset = 1u << 15;      // "0 BMCR: 15 reset"
constexpr std::uint16_t kBmcrRestartAn = 1u << 9;   // "9 restart AN"

// docs/hardware/dwmac.md §8.2: "2/3 PHYID: YT8531 = 0x4F51_E91B".
TEST(PhyModel, ReportsTheYt8531Id) {
  PhyModel phy;
  EXPECT_EQ(phy.read(2), 0x4F51);
  EXPECT_EQ(phy.read(3), 0xE91B);
  PhyModel other(with([](PhyModel::Options& o) { o.id = 0x4F51'E91A; }));
  EXPECT_EQ(other.read(3), 0xE91A);
}

// docs/hardware/dwmac.md §8.2: "2 link (latched low — read twice)".
TEST(PhyModel, LinkDownStaysLatchedUntilRead) {
  PhyModel phy;
  EXPECT_NE(phy.read(1) & kBmsrLink, 0);
  phy.set_link(false);
  phy.set_link(true);  // the link bounced: the first read must still say down
  phy.set_link(true);
  EXPECT_EQ(phy.read(1) & kBmsrLink, 0);
  // Autonegotiation runs after the link came back (autoneg_reads = 2).
  EXPECT_EQ(phy.read(1) & kBmsrAnComplete, 0);
  EXPECT_NE(phy.read(1) & kBmsrAnComplete, 0);
  EXPECT_NE(phy.read(1) & kBmsrLink, 0);
}

TEST(PhyModel, LinkDownReadsDownEveryTime) {
  PhyModel phy;
  phy.set_link(false);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(phy.read(1) & kBmsrLink, 0);
  EXPECT_EQ(phy.read(0x11) & (1u << 10), 0);  // specific status real-time link
}

// docs/hardware/dwmac.md §8.2: "0 BMCR: 15 reset, 9 restart AN"; "1 BMSR: 5 AN complete".
TEST(PhyModel, ResetSelfClearsAfterOneReadAndRestartsAutonegotiation) {
  PhyModel phy(with([](PhyModel::Options& o) { o.autoneg_reads = 3; }));
  phy.write(4, 0x0061);  // ANAR changed: reset must restore it
  phy.write(0, kBmcrReset);
  EXPECT_EQ(phy.counters().resets, 1u);
  EXPECT_NE(phy.read(0) & kBmcrReset, 0);
  EXPECT_EQ(phy.read(0) & kBmcrReset, 0);
  EXPECT_EQ(phy.read(4), 0x01E1);
  int reads = 0;
  while ((phy.read(1) & kBmsrAnComplete) == 0) {
    ++reads;
    ASSERT_LT(reads, 10);
  }
  EXPECT_EQ(reads, 3);
  // Link was latched low across the AN: the next read reports it up.
  EXPECT_NE(phy.read(1) & kBmsrLink, 0);
}

TEST(PhyModel, RestartAnSelfClearsAndIsCounted) {
  PhyModel phy;
  phy.write(0, phy.read(0) | kBmcrRestartAn);
  EXPECT_EQ(phy.read(0) & kBmcrRestartAn, 0);
  EXPECT_EQ(phy.counters().autoneg_restarts, 1u);
  EXPECT_EQ(phy.read(1) & kBmsrAnComplete, 0);
}

// docs/hardware/dwmac.md §8.2 "0x11 specific status: 15:14 speed (00 10M, 01 100M, 10 1000M), 13
// duplex, 11 resolved, 10 real-time link".
TEST(PhyModel, SpecificStatusReportsSpeedAndDuplex) {
  PhyModel phy;
  EXPECT_EQ(phy.read(0x11), (2u << 14) | (1u << 13) | (1u << 11) | (1u << 10));
  phy.set_link(false);
  phy.set_link(true, PhyModel::Speed::k100, false);
  while ((phy.read(1) & kBmsrAnComplete) == 0) {
  }
  EXPECT_EQ(phy.read(0x11), (1u << 14) | (1u << 11) | (1u << 10));
  phy.set_link(false);
  phy.set_link(true, PhyModel::Speed::k10, true);
  while ((phy.read(1) & kBmsrAnComplete) == 0) {
  }
  EXPECT_EQ(phy.read(0x11), (0u << 14) | (1u << 13) | (1u << 11) | (1u << 10));
  // 1000BASE-T status only reports a 1000 Mb/s partner.
  EXPECT_EQ(phy.read(10), 0);
}

// docs/hardware/dwmac.md §8.2 "0x1E / 0x1F extended-register address / data (indirect)"; ext
// 0xA001, 0xA003, 0xA010, 0xA012.
TEST(PhyModel, ExtendedRegistersThroughTheWindow) {
  PhyModel phy;
  phy.write(0x1E, 0xA003);
  phy.write(0x1F, 0x4000 | (5u << 10));  // TX clock invert, RX delay 5
  phy.write(0x1E, 0xA001);
  phy.write(0x1F, 1u << 8);  // RXC_DLY_EN
  EXPECT_EQ(phy.extended(0xA003), 0x4000 | (5u << 10));
  EXPECT_EQ(phy.extended(0xA001), 1u << 8);
  phy.write(0x1E, 0xA003);
  EXPECT_EQ(phy.read(0x1F), 0x4000 | (5u << 10));
  phy.write(0x1E, 0x1234);  // not modelled: reads 0, keeps nothing
  phy.write(0x1F, 0xFFFF);
  EXPECT_EQ(phy.read(0x1F), 0);
  EXPECT_EQ(phy.extended(0xA010), 0);
}

void write_ext(PhyModel& phy, std::uint16_t reg, std::uint16_t value) {
  phy.write(0x1E, reg);
  phy.write(0x1F, value);
}

// The RX clock the MAC's reset needs (docs/hardware/star64-reference-drivers.md
// §5): with a link, or with ext 0xC bit 12 cleared (Linux's
// motorcomm,keep-pll-enabled); a BMCR reset sets the bit again.
TEST(PhyModel, RxClockRunsWithALinkOrWhenKeptOn) {
  PhyModel phy(with([](PhyModel::Options& o) { o.link_up = false; }));
  EXPECT_FALSE(phy.rx_clock_running());
  write_ext(phy, 0xC, phy.extended(0xC) & ~(1u << 12));
  EXPECT_TRUE(phy.rx_clock_running());
  phy.write(0, kBmcrReset);
  EXPECT_FALSE(phy.rx_clock_running());
  phy.set_link(true);
  while ((phy.read(1) & kBmsrAnComplete) == 0) {
  }
  EXPECT_TRUE(phy.rx_clock_running());
}

// Whether a BMCR reset clears the extended registers is not published: the
// model does both, by option.
TEST(PhyModel, SoftResetClearsTheExtendedRegistersUnlessToldNot) {
  PhyModel clears;
  write_ext(clears, 0xA003, 0x4000 | 10u << 10 | 13u);
  clears.write(0, kBmcrReset);
  EXPECT_EQ(clears.extended(0xA003), 0u);
  PhyModel keeps(with([](PhyModel::Options& o) { o.reset_clears_extended = false; }));
  write_ext(keeps, 0xA003, 0x4000 | 10u << 10 | 13u);
  keeps.write(0, kBmcrReset);
  EXPECT_EQ(keeps.extended(0xA003), 0x4000 | 10u << 10 | 13u);
}

// With the Star64's timing, frames cross only with the device tree's
// setting: RX 1500 ps (10 steps), TX 1950 ps (13 steps) inverted, ds 3.
TEST(PhyModel, Star64TimingDecidesWhichFramesCross) {
  PhyModel phy(with([](PhyModel::Options& o) { o.timing = &kStar64Gmac0Timing; }));
  // Reset values: no delays, weakest drive: nothing crosses either way.
  EXPECT_FALSE(phy.carry_tx_frame());
  EXPECT_FALSE(phy.carry_rx_frame());
  write_ext(phy, 0xA003, 0x4000 | 10u << 10 | 13u);
  write_ext(phy, 0xA010, 3u << 13 | 3u << 4);
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(phy.carry_tx_frame());
    EXPECT_TRUE(phy.carry_rx_frame());
  }
  EXPECT_EQ(phy.counters().tx_frames_damaged, 1u);
  EXPECT_EQ(phy.counters().rx_frames_damaged, 1u);
  // No TX delay: receive fine, every frame sent damaged.
  write_ext(phy, 0xA003, 0x4000 | 10u << 10);
  EXPECT_FALSE(phy.carry_tx_frame());
  EXPECT_TRUE(phy.carry_rx_frame());
  // The vendor's old pair (RXC_DLY_EN alone = 1900, TX 1500): marginal,
  // one frame in four lost.
  write_ext(phy, 0xA001, phy.extended(0xA001) | 1u << 8);
  write_ext(phy, 0xA003, 0x4000 | 10u);
  const std::uint64_t before = phy.counters().tx_frames_damaged;
  for (int i = 0; i < 8; ++i) (void)phy.carry_tx_frame();
  EXPECT_EQ(phy.counters().tx_frames_damaged - before, 2u);
}

}  // namespace
}  // namespace starling::model
