// The model's MMC block (docs/hardware/dwmac.md §2.4): the statistics
// counters it keeps, their half- and full-scale interrupts, the masks, and
// the MAC interrupt they raise on the line, which MAC_INTERRUPT_ENABLE does
// not gate. Offsets and bits typed in again here from the doc.

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"

namespace starling::model {
namespace {

using testing::frame_to_us;
using testing::Rig;
namespace facts = testing::facts;

class DwmacMmc : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(rig.init());
    for (std::uint32_t i = 0; i < 8; ++i) rig.arm_rx(i);
    rig.rx_tail(8);
    rig.write(facts::kCh0Status, 0xFFFF'FFFF);
  }

  void receive_one(std::size_t size = 60) {
    ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(size)), DwmacModel::RxOutcome::kDelivered);
    rig.write(facts::kCh0Status, 0xFFFF'FFFF);  // the DMA's own status out of the way
  }

  Rig rig;
};

TEST_F(DwmacMmc, CountersStartAtZeroAndCountBothWays) {
  for (std::uint32_t offset :
       {facts::kMmcControl, facts::kMmcRxInterrupt, facts::kMmcTxInterrupt,
        facts::kMmcRxInterruptMask, facts::kMmcTxInterruptMask, facts::kTxOctetCountGoodBad,
        facts::kTxPacketCountGoodBad, facts::kRxPacketsCountGoodBad, facts::kRxOctetCountGoodBad,
        facts::kMmcIpcRxInterruptMask}) {
    EXPECT_EQ(rig.read(offset), 0u) << std::hex << offset;
  }
  receive_one(100);
  rig.post_tx(0, frame_to_us(40));  // padded to 60 on the wire
  rig.tx_tail(1);
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 1u);
  EXPECT_EQ(rig.read(facts::kRxOctetCountGoodBad), 104u);  // with the FCS
  EXPECT_EQ(rig.read(facts::kTxPacketCountGoodBad), 1u);
  EXPECT_EQ(rig.read(facts::kTxOctetCountGoodBad), 64u);
  EXPECT_EQ(rig.mac().counters().unknown_register_accesses, 0u);
}

// The fault the driver must guard against: a counter passing half scale,
// interrupts unmasked (their reset state), MAC_INTERRUPT_ENABLE all zero.
TEST_F(DwmacMmc, HalfScaleRaisesTheLineDespiteMacInterruptEnable) {
  EXPECT_EQ(rig.read(facts::kMacInterruptEnable), 0u);
  rig.write(facts::kMmcControl, facts::kCntprst);  // almost half: 0x7FFFFFF0
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 0x7FFF'FFF0u);
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), 0u);  // a preset alone sets nothing
  EXPECT_FALSE(rig.mac().interrupt_line());
  receive_one();  // 0x7FFFFFF0 + 64 octets crosses half scale; packets do not
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), facts::kRxGbOctetIs);
  EXPECT_EQ(
      rig.read(facts::kMacInterruptStatus) & (facts::kMmcIs | facts::kMmcRxIs | facts::kMmcTxIs),
      facts::kMmcIs | facts::kMmcRxIs);
  EXPECT_NE(rig.read(facts::kDmaInterruptStatus) & facts::kMacis, 0u);
  EXPECT_TRUE(rig.mac().interrupt_line());
  // Acknowledging the DMA, which is all a DMA-only driver does, changes nothing.
  rig.write(facts::kCh0Status, 0xFFFF'FFFF);
  EXPECT_TRUE(rig.mac().interrupt_line());
  // Reading the counter that raised it clears its bit, and the line falls.
  rig.read(facts::kRxOctetCountGoodBad);
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), 0u);
  EXPECT_EQ(rig.read(facts::kMacInterruptStatus), 0u);
  EXPECT_FALSE(rig.mac().interrupt_line());
}

TEST_F(DwmacMmc, MasksKeepTheInterruptFromTheLineButNotFromTheRegister) {
  rig.write(facts::kMmcRxInterruptMask, 0xFFFF'FFFF);
  rig.write(facts::kMmcTxInterruptMask, 0xFFFF'FFFF);
  rig.write(facts::kMmcIpcRxInterruptMask, 0xFFFF'FFFF);
  rig.write(facts::kMmcControl, facts::kCntprst);
  receive_one();
  rig.post_tx(0, frame_to_us(60));
  rig.tx_tail(1);
  rig.write(facts::kCh0Status, 0xFFFF'FFFF);
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), facts::kRxGbOctetIs);
  EXPECT_EQ(rig.read(facts::kMmcTxInterrupt), facts::kTxGbOctetIs);
  EXPECT_EQ(rig.read(facts::kMacInterruptStatus), 0u);
  EXPECT_EQ(rig.read(facts::kDmaInterruptStatus), 0u);
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_EQ(rig.mac().counters().mmc_interrupts, 2u);
  // Unmasking with the bit pending raises the line at once.
  rig.write(facts::kMmcTxInterruptMask, 0);
  EXPECT_EQ(rig.read(facts::kMacInterruptStatus), facts::kMmcIs | facts::kMmcTxIs);
  EXPECT_TRUE(rig.mac().interrupt_line());
}

TEST_F(DwmacMmc, FullScaleRollsOverOrStops) {
  rig.write(facts::kMmcControl, facts::kCntprst | facts::kCntprstlvl);  // almost full: 0xFFFFFFF0
  EXPECT_EQ(rig.read(facts::kTxPacketCountGoodBad), 0xFFFF'FFF0u);
  receive_one();  // 0xFFFFFFF0 + 64 rolls over
  EXPECT_EQ(rig.read(facts::kRxOctetCountGoodBad), 0x30u);
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), 0u);  // read: cleared
  rig.write(facts::kMmcControl, facts::kCntprst | facts::kCntprstlvl | facts::kCntstopro);
  receive_one();
  EXPECT_EQ(rig.read(facts::kRxOctetCountGoodBad), 0xFFFF'FFFFu);  // stopped at all ones
  EXPECT_EQ(rig.mac().counters().mmc_interrupts, 2u);
}

TEST_F(DwmacMmc, ResetFreezeAndResetOnRead) {
  receive_one();
  rig.write(facts::kMmcControl, facts::kCntfreez);
  receive_one();
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 1u);  // frozen
  rig.write(facts::kMmcControl, facts::kRstonrd);
  EXPECT_EQ(rig.read(facts::kMmcControl),
            facts::kRstonrd);  // CNTRST/CNTPRST self-clear; the rest stays
  receive_one();
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 2u);
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 0u);  // reset by the read
  rig.write(facts::kMmcControl, facts::kCntrst);
  EXPECT_EQ(rig.read(facts::kRxOctetCountGoodBad), 0u);
  EXPECT_EQ(rig.read(facts::kMmcControl), 0u);
  // The counters and interrupt registers are read-only.
  rig.write(facts::kRxPacketsCountGoodBad, 5);
  rig.write(facts::kMmcRxInterrupt, 1);
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 0u);
  EXPECT_EQ(rig.read(facts::kMmcRxInterrupt), 0u);
}

// SWR resets the MMC block with everything else: counters, masks, control.
TEST_F(DwmacMmc, SoftResetClearsTheBlock) {
  rig.write(facts::kMmcRxInterruptMask, 0xFFFF'FFFF);
  receive_one();
  rig.write(facts::kDmaMode, facts::kSwr);
  while ((rig.read(facts::kDmaMode) & facts::kSwr) != 0) {
  }
  EXPECT_EQ(rig.read(facts::kMmcRxInterruptMask), 0u);
  EXPECT_EQ(rig.read(facts::kRxPacketsCountGoodBad), 0u);
}

}  // namespace
}  // namespace starling::model
