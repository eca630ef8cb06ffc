#include <gtest/gtest.h>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"

namespace starling::model {
namespace {

using testing::Rig;
namespace facts = testing::facts;

DwmacModel::Options with(void (*change)(DwmacModel::Options&)) {
  DwmacModel::Options options;
  change(options);
  return options;
}

// docs/hardware/dwmac.md §4.1 "0 SWR self-clearing soft reset"; Options.reset_reads = 3.
TEST(DwmacRegisters, SoftResetClearsAfterTheConfiguredReads) {
  Rig rig;
  rig.write(facts::kDmaMode, facts::kSwr);
  EXPECT_TRUE(rig.mac().in_reset());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rig.read(facts::kDmaMode) & facts::kSwr, facts::kSwr) << i;
  EXPECT_EQ(rig.read(facts::kDmaMode) & facts::kSwr, 0u);
  EXPECT_EQ(rig.mac().counters().resets, 1u);
}

// docs/hardware/dwmac.md §4.1: SWR resets "all MAC/MTL/DMA CSRs".
TEST(DwmacRegisters, SoftResetReturnsRegistersToResetValues) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMacPacketFilter, facts::kPr);
  rig.write(facts::kCh0InterruptEnable, 0xFFFF);
  rig.write(facts::kDmaSysbusMode, 0x8F0F'08F1);
  ASSERT_NE(rig.read(facts::kMacConfiguration), 0u);
  ASSERT_TRUE(rig.soft_reset());
  for (std::uint32_t offset :
       {facts::kMacConfiguration, facts::kMacPacketFilter, facts::kMacRxqCtrl0,
        facts::kDmaSysbusMode, facts::kCh0Control, facts::kCh0TxControl, facts::kCh0RxControl,
        facts::kCh0TxListAddress, facts::kCh0RxListAddress, facts::kCh0TxTail, facts::kCh0RxTail,
        facts::kCh0TxRingLength, facts::kCh0RxRingLength, facts::kCh0InterruptEnable,
        facts::kCh0Status, facts::kMtlRxq0OperationMode}) {
    EXPECT_EQ(rig.read(offset), 0u) << std::hex << offset;
  }
  EXPECT_EQ(rig.read(facts::kDmaMode), 0u);
  // MAC_ADDRESS0 wiped to the databook reset (all ones, AE); docs/hardware/jh7110.md §7 "reset
  // wiped it".
  EXPECT_EQ(rig.read(facts::kMacAddress0High), 0x8000'FFFFu);
  EXPECT_EQ(rig.read(facts::kMacAddress0Low), 0xFFFF'FFFFu);
  EXPECT_EQ(rig.mac().tx_state(), DwmacModel::DmaState::kStopped);
  EXPECT_EQ(rig.mac().rx_state(), DwmacModel::DmaState::kStopped);
}

TEST(DwmacRegisters, StuckResetNeverClearsAndIgnoresWrites) {
  Rig rig(with([](DwmacModel::Options& o) { o.reset_reads = 0; }));
  EXPECT_FALSE(rig.soft_reset(1000));
  rig.write(facts::kMacPacketFilter, facts::kPr);
  EXPECT_EQ(rig.read(facts::kMacPacketFilter), 0u);
  EXPECT_EQ(rig.mac().counters().writes_during_reset, 1u);
}

TEST(DwmacRegisters, WritesWhileResetIsPendingAreLostAndCounted) {
  Rig rig;
  rig.write(facts::kDmaMode, facts::kSwr);
  rig.write(facts::kCh0InterruptEnable, facts::kNie);
  EXPECT_EQ(rig.mac().counters().writes_during_reset, 1u);
  ASSERT_TRUE(rig.soft_reset());
  EXPECT_EQ(rig.read(facts::kCh0InterruptEnable), 0u);
}

// docs/hardware/dwmac.md §2.2 MAC_VERSION "7:0 SNPSVER, 15:8 USERVER", LOG "User ID: 0x41, Synopsys
// ID: 0x52" (so 0x4152; docs/hardware/dwmac.md §2.2's "0x00005241" contradicts its own layout);
// HW_FEATURE1 "bytes = 128 << field", "ADDR64=1"; FEATURE0 TXCOESEL 14, RXCOESEL 16, GMIISEL 1,
// MMCSEL 8; FEATURE2 counts = field + 1.
TEST(DwmacRegisters, VersionAndFeatures) {
  Rig rig;
  EXPECT_EQ(rig.read(facts::kMacVersion), 0x0000'4152u);
  EXPECT_EQ(rig.read(facts::kMacVersion) & 0xFF, 0x52u);
  EXPECT_EQ((rig.read(facts::kMacVersion) >> 8) & 0xFF, 0x41u);
  const std::uint32_t f0 = rig.read(facts::kMacHwFeature0);
  EXPECT_NE(f0 & (1u << 14), 0u);
  EXPECT_NE(f0 & (1u << 16), 0u);
  EXPECT_NE(f0 & (1u << 1), 0u);
  EXPECT_NE(f0 & (1u << 8), 0u);
  const std::uint32_t f1 = rig.read(facts::kMacHwFeature1);
  EXPECT_EQ(128u << (f1 & 0x1F), 2048u);
  EXPECT_EQ(128u << ((f1 >> 6) & 0x1F), 2048u);
  EXPECT_EQ((f1 >> 14) & 3, 1u);
  EXPECT_EQ(rig.read(facts::kMacHwFeature2), 0u);
  rig.write(facts::kMacVersion, 0);  // read-only
  EXPECT_EQ(rig.read(facts::kMacVersion), 0x0000'4152u);

  Rig other(with([](DwmacModel::Options& o) {
    o.version = 0x0000'1051;
    o.fifo_size_field = 5;
  }));
  EXPECT_EQ(other.read(facts::kMacVersion) & 0xFF, 0x51u);
  EXPECT_EQ(128u << (other.read(facts::kMacHwFeature1) & 0x1F), 4096u);
}

// docs/hardware/dwmac.md §3.1 MTL_TXQ0_OPERATION_MODE: "With a single TX queue TXQEN/TQS are
// read-only (reads 10 / full FIFO)"; TQS = bytes/256 - 1.
TEST(DwmacRegisters, TxQueueSizeIsReadOnly) {
  Rig rig;
  rig.write(facts::kMtlTxq0OperationMode, facts::kTsf);
  const std::uint32_t v = rig.read(facts::kMtlTxq0OperationMode);
  EXPECT_EQ(v & facts::kTsf, facts::kTsf);
  EXPECT_EQ((v >> 2) & 3, 2u);
  EXPECT_EQ((v >> 16) & 0x1FF, 2048u / 256 - 1);
}

// docs/hardware/dwmac.md §2.1 MAC_ADDRESSn_HIGH: "For n=0 AE is effectively always on".
TEST(DwmacRegisters, MacAddressHighKeepsAe) {
  Rig rig;
  rig.write(facts::kMacAddress0High, facts::kOurMacHigh);
  EXPECT_EQ(rig.read(facts::kMacAddress0High), facts::kOurMacHigh | (1u << 31));
}

TEST(DwmacRegisters, UnknownOffsetsReadZeroAndAreCounted) {
  Rig rig;
  EXPECT_EQ(rig.read(0x0FC), 0u);
  rig.write(0x2000, 1);
  EXPECT_EQ(rig.read(0x2000), 0u);
  EXPECT_EQ(rig.mac().counters().unknown_register_accesses, 3u);
  rig.read(facts::kMacConfiguration);
  EXPECT_EQ(rig.mac().counters().unknown_register_accesses, 3u);
}

// docs/hardware/dwmac.md §2.3 MDIO transaction: "poll GB=0 → write ADDRESS = PA<<21 | RDA<<16 |
// CR<<8 | GOC<<2 | GB → poll GB=0 → (read) take MDIO_DATA[15:0]"; GOC 11 read, 01 write.
TEST(DwmacMdio, ReadsThePhyAtItsAddress) {
  Rig rig;
  EXPECT_EQ(rig.mdio_read(0, 2), 0x4F51);
  EXPECT_EQ(rig.mdio_read(0, 3), 0xE91B);
  EXPECT_EQ(rig.mac().counters().mdio_transactions, 2u);
  EXPECT_EQ(rig.mac().phy().counters().reads, 2u);
}

TEST(DwmacMdio, BusyForTheConfiguredReadsAndDataOnlyAfterwards) {
  Rig rig;  // mdio_busy_reads = 2
  rig.write(facts::kMacMdioData, 0);
  rig.write(facts::kMacMdioAddress, (0u << 21) | (2u << 16) | (5u << 8) | (3u << 2) | 1u);
  EXPECT_EQ(rig.read(facts::kMacMdioData) & 0xFFFF, 0u);  // not done yet
  EXPECT_EQ(rig.read(facts::kMacMdioAddress) & 1u, 1u);
  EXPECT_EQ(rig.read(facts::kMacMdioAddress) & 1u, 1u);
  const std::uint32_t done = rig.read(facts::kMacMdioAddress);
  EXPECT_EQ(done & 1u, 0u);
  EXPECT_EQ((done >> 8) & 0xF, 5u);  // CR kept
  EXPECT_EQ(rig.read(facts::kMacMdioData) & 0xFFFF, 0x4F51u);
}

TEST(DwmacMdio, WritesReachThePhy) {
  Rig rig;
  EXPECT_TRUE(rig.mdio_write(0, 0x1E, 0xA003));
  EXPECT_TRUE(rig.mdio_write(0, 0x1F, 0x1234));
  EXPECT_EQ(rig.mac().phy().extended(0xA003), 0x1234);
  EXPECT_EQ(rig.mac().phy().counters().writes, 2u);
}

TEST(DwmacMdio, WrongPhyAddressReadsAllOnesAndWritesNothing) {
  Rig rig;
  EXPECT_EQ(rig.mdio_read(1, 2), 0xFFFF);
  EXPECT_TRUE(rig.mdio_write(7, 4, 0));
  EXPECT_EQ(rig.mac().phy().counters().reads, 0u);
  EXPECT_EQ(rig.mac().phy().counters().writes, 0u);
  Rig second(with([](DwmacModel::Options& o) { o.phy.address = 1; }));
  EXPECT_EQ(second.mdio_read(1, 2), 0x4F51);
  EXPECT_EQ(second.mdio_read(0, 2), 0xFFFF);
}

TEST(DwmacMdio, StuckBusNeverCompletes) {
  Rig rig(with([](DwmacModel::Options& o) { o.mdio_busy_reads = 0; }));
  EXPECT_EQ(rig.mdio_read(0, 2, 500), std::nullopt);
  EXPECT_EQ(rig.mac().phy().counters().reads, 0u);
  // A second transaction cannot start while GB is set.
  EXPECT_FALSE(rig.mdio_write(0, 0, 0x8000, 10));
  EXPECT_EQ(rig.mac().phy().counters().resets, 0u);
}

// docs/hardware/dwmac.md §8.2 "1 BMSR: 2 link (latched low — read twice)", through MDIO.
TEST(DwmacMdio, PhyLinkAndAutonegotiationOverMdio) {
  Rig rig;
  ASSERT_TRUE(rig.mdio_write(0, 0, 0x8000));  // BMCR reset
  EXPECT_EQ(*rig.mdio_read(0, 0) & 0x8000, 0x8000);
  EXPECT_EQ(*rig.mdio_read(0, 0) & 0x8000, 0);
  int reads = 0;
  while ((*rig.mdio_read(0, 1) & (1u << 2)) == 0) ASSERT_LT(++reads, 10);
  EXPECT_EQ(reads, 3);  // 2 AN-in-progress reads, then 1 latched-low read
  // docs/hardware/dwmac.md §2.1 MAC_PHYIF_CONTROL_STATUS: 19 LNKSTS, 18:17 LNKSPEED 10 = 1G, 16
  // LNKMOD.
  EXPECT_EQ(rig.read(facts::kMacPhyif), (1u << 19) | (2u << 17) | (1u << 16));
}

}  // namespace
}  // namespace starling::model
