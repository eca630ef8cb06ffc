#include "platform/star64/jh7110_clocks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace starling::board::jh7110 {
namespace {

struct Write {
  std::string block;
  std::uint32_t offset = 0;
  std::uint32_t value = 0;
  friend bool operator==(const Write&, const Write&) = default;
};

std::ostream& operator<<(std::ostream& out, const Write& w) {
  return out << w.block << "+0x" << std::hex << w.offset << " <- 0x" << w.value << std::dec;
}

// One register block as plain memory (unset words read `fill`), logging
// writes into a log shared by all blocks so the order across them shows.
// The AONCRG's reset status word follows the assert word, as the hardware's
// does, unless `stuck` bits never show released.
class FakeBlock : public mmio::RegisterBus {
 public:
  FakeBlock(std::string name, std::vector<Write>& log, std::uint32_t fill)
      : name_(std::move(name)), log_(log), fill_(fill) {}
  virtual ~FakeBlock() = default;

  std::uint32_t read32(std::uint32_t offset) override {
    ++reads_[offset];
    if (is_aon_crg && offset == kAonResetStatus) {
      return ((~word(kAonResetAssert) & (kResetGmac0Axi | kResetGmac0Ahb)) | stuck_released) &
             ~stuck;
    }
    return word(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    log_.push_back({name_, offset, value});
    words_[offset] = value;
  }

  std::uint32_t word(std::uint32_t offset) const {
    auto it = words_.find(offset);
    return it == words_.end() ? fill_ : it->second;
  }
  void set(std::uint32_t offset, std::uint32_t value) { words_[offset] = value; }
  int reads(std::uint32_t offset) const {
    auto it = reads_.find(offset);
    return it == reads_.end() ? 0 : it->second;
  }

  bool is_aon_crg = false;
  std::uint32_t stuck = 0;           // never shows released
  std::uint32_t stuck_released = 0;  // never shows asserted

 private:
  std::string name_;
  std::vector<Write>& log_;
  std::uint32_t fill_;
  std::map<std::uint32_t, std::uint32_t> words_;
  std::map<std::uint32_t, int> reads_;
};

class Gmac0BringUpTest : public ::testing::Test {
 protected:
  Gmac0BringUpTest() {
    aon.is_aon_crg = true;
    // As U-Boot leaves it after eqos_stop: both resets asserted (plus an
    // unrelated reset bit that must stay asserted).
    aon.set(kAonResetAssert, 0x3 | 1u << 5);
    // Divider fields and neighbouring syscon bits that must survive.
    aon.set(kAonGmac0Tx, 0x0000'0003);
    aon.set(kAonGmac0Rx, 0x0100'0000);
    sys.set(kSysGmac0GtxClk, 0x0000'0008);
    syscon.set(kAonSysconGmac0Mode, 0xFFE3'FFFF | 4u << kPhyModeShift);
  }

  Gmac0Blocks blocks() {
    return {.aon_crg = mmio::Registers(kAonCrgBase, &aon),
            .sys_crg = mmio::Registers(kSysCrgBase, &sys),
            .aon_syscon = mmio::Registers(kAonSysconBase, &syscon)};
  }

  std::vector<Write> log;
  FakeBlock aon{"aoncrg", log, 0};
  FakeBlock sys{"syscrg", log, 0};
  FakeBlock syscon{"aonsyscon", log, 0};
};

TEST_F(Gmac0BringUpTest, WritesClocksThenModeThenResetsInOrder) {
  ASSERT_TRUE(gmac0_bring_up(blocks()).ok());
  const std::vector<Write> expected = {
      {"aoncrg", 0x08, 0x8000'0000},     // GMAC0_AHB gate
      {"aoncrg", 0x0C, 0x8000'0000},     // GMAC0_AXI gate
      {"aoncrg", 0x14, 0x8100'0003},     // GMAC0_TX: on, parent rmii_rtx, divider kept
      {"aoncrg", 0x18, 0x4000'0000},     // GMAC0_TX_INV: inverted, as U-Boot sets it
      {"aoncrg", 0x1C, 0x0000'0000},     // GMAC0_RX: parent rgmii_rxin
      {"syscrg", 0x1B0, 0x8000'0008},    // GMAC0_GTXCLK gate, divider kept
      {"syscrg", 0x1B4, 0x8000'0000},    // GMAC0_PTP
      {"syscrg", 0x1BC, 0x8000'0000},    // GMAC0_GTXC (GMAC_PHY, 0x1B8, left alone)
      {"aonsyscon", 0x0C, 0xFFE7'FFFF},  // bits 20:18 = 1 (RGMII), the rest kept
      {"aoncrg", 0x38, 0x0000'0023},     // AXI reset asserted (already was: written anyway)
      {"aoncrg", 0x38, 0x0000'0022},     // AXI reset released
      {"aoncrg", 0x38, 0x0000'0020},     // then AHB; bit 5 untouched
  };
  EXPECT_EQ(log, expected);
}

// GMAC_PHY (SYSCRG 0x1B8) is a clock no reference driver enables for GMAC0:
// left as found, on or off.
TEST_F(Gmac0BringUpTest, LeavesTheGmacPhyClockAsFound) {
  sys.set(kSysGmacPhy, 0x0000'0010);
  ASSERT_TRUE(gmac0_bring_up(blocks()).ok());
  EXPECT_EQ(sys.word(kSysGmacPhy), 0x0000'0010u);
  for (const Write& w : log) EXPECT_FALSE(w.block == "syscrg" && w.offset == kSysGmacPhy) << w;
}

// A block U-Boot left running (both resets released) is reset anyway, as
// Linux does: the AXI reset is asserted, seen asserted, then released, so
// the MAC comes out of reset with the RGMII mode just written.
TEST_F(Gmac0BringUpTest, ARunningBlockIsPulsedAfterTheModeIsSet) {
  aon.set(kAonResetAssert, 0);
  ASSERT_TRUE(gmac0_bring_up(blocks()).ok());
  std::vector<Write> tail(log.end() - 4, log.end());
  const std::vector<Write> expected = {
      {"aonsyscon", 0x0C, 0xFFE7'FFFF},
      {"aoncrg", 0x38, kResetGmac0Axi},  // asserted after the mode
      {"aoncrg", 0x38, 0},               // released
      {"aoncrg", 0x38, 0},               // AHB: already released, written released
  };
  EXPECT_EQ(tail, expected);
}

TEST_F(Gmac0BringUpTest, WaitsForTheStatusToShowReleased) {
  ASSERT_TRUE(gmac0_bring_up(blocks()).ok());
  EXPECT_GE(aon.reads(kAonResetStatus), 2);  // at least once per reset
}

TEST_F(Gmac0BringUpTest, AlreadyRunningBlockEndsRunning) {
  aon.set(kAonResetAssert, 0);
  ASSERT_TRUE(gmac0_bring_up(blocks()).ok());
  EXPECT_EQ(aon.word(kAonResetAssert), 0u);
  EXPECT_EQ(syscon.word(kAonSysconGmac0Mode) & kPhyModeMask, kPhyModeRgmii);
}

TEST_F(Gmac0BringUpTest, AxiResetThatNeverReleasesTimesOutWithinTheLimit) {
  aon.stuck = kResetGmac0Axi;
  auto result = gmac0_bring_up(blocks(), 50);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::kTimedOut);
  EXPECT_EQ(aon.reads(kAonResetStatus), 1 + 50);  // asserted at once, never released
  // It stopped there: the AHB reset was not touched.
  EXPECT_EQ(aon.word(kAonResetAssert) & kResetGmac0Ahb, kResetGmac0Ahb);
}

TEST_F(Gmac0BringUpTest, AhbResetThatNeverReleasesTimesOut) {
  aon.stuck = kResetGmac0Ahb;
  auto result = gmac0_bring_up(blocks(), 50);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::kTimedOut);
  EXPECT_EQ(aon.reads(kAonResetStatus), 1 + 1 + 50);
}

TEST_F(Gmac0BringUpTest, AxiResetThatNeverShowsAssertedTimesOut) {
  aon.stuck_released = kResetGmac0Axi;
  auto result = gmac0_bring_up(blocks(), 50);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::kTimedOut);
  EXPECT_EQ(aon.reads(kAonResetStatus), 50);
}

TEST(Gmac0BlocksTest, DefaultsAreTheJh7110Addresses) {
  const Gmac0Blocks blocks;
  EXPECT_EQ(blocks.aon_crg.base(), 0x1700'0000u);
  EXPECT_EQ(blocks.sys_crg.base(), 0x1302'0000u);
  EXPECT_EQ(blocks.aon_syscon.base(), 0x1701'0000u);
  EXPECT_EQ(blocks.aon_crg.model(), nullptr);
}

}  // namespace
// The TRNG's clocks and reset in the STGCRG: both gates set (dividers and
// other bits kept), then reset bit 3 released (the shared crypto resets
// beside it untouched), then the status polled until it shows released.
class StgCrg : public mmio::RegisterBus {
 public:
  std::uint32_t read32(std::uint32_t offset) override {
    if (offset == kStgResetStatus) return stuck ? 0 : ~word(kStgResetAssert);
    return word(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    writes.push_back({"stgcrg", offset, value});
    words[offset] = value;
  }
  std::uint32_t word(std::uint32_t offset) const {
    auto it = words.find(offset);
    return it == words.end() ? 0 : it->second;
  }
  std::map<std::uint32_t, std::uint32_t> words;
  std::vector<Write> writes;
  bool stuck = false;
};

TEST(TrngBringUpTest, ClocksBeforeTheResetRelease) {
  StgCrg crg;
  crg.words[kStgSecAhb] = 0x2;        // a divider field to keep
  crg.words[kStgResetAssert] = 0x1F;  // all STG security resets asserted
  ASSERT_TRUE(trng_bring_up(mmio::Registers(0, &crg), 100).ok());
  ASSERT_EQ(crg.writes.size(), 3u);
  EXPECT_EQ(crg.writes[0].offset, kStgSecAhb);
  EXPECT_EQ(crg.writes[0].value, kClockEnable | 0x2);
  EXPECT_EQ(crg.writes[1].offset, kStgSecMiscAhb);
  EXPECT_EQ(crg.writes[1].value, kClockEnable);
  EXPECT_EQ(crg.writes[2].offset, kStgResetAssert);
  EXPECT_EQ(crg.writes[2].value, 0x1Fu & ~kResetSecAhb);
}

TEST(TrngBringUpTest, AResetThatNeverShowsReleasedTimesOut) {
  StgCrg crg;
  crg.words[kStgResetAssert] = kResetSecAhb;
  crg.stuck = true;
  auto r = trng_bring_up(mmio::Registers(0, &crg), 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
}

TEST(TrngBringUpTest, TheAddressesAreTheJh7110s) {
  EXPECT_EQ(kStgCrgBase, 0x1023'0000u);
  EXPECT_EQ(kTrngBase, 0x1600'C000u);
}

}  // namespace starling::board::jh7110
