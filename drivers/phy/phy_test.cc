// Host test: the MDIO master and the clause-22 PHY code against the device
// model's MDIO bus and PHY (//drivers/dwmac/model:model), without the rest of
// the driver.

#include "drivers/phy/phy.h"

#include <gtest/gtest.h>

#include <memory>

#include "drivers/dwmac/mdio.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/registers.h"

namespace starling::phy {
namespace {

namespace reg = dwmac::reg;
using dwmac::Mdio;

using model::DwmacModel;
using model::PhyModel;

class PhyTest : public ::testing::Test {
 protected:
  void make(DwmacModel::Options options = {}) {
    region_ = model::DmaRegion::create(1 << 16);
    ASSERT_NE(region_, nullptr);
    model_ = std::make_unique<DwmacModel>(*region_, options);
    mdio_ = Mdio(mmio::Registers(0x1603'0000, model_.get()), 5);
  }

  std::unique_ptr<model::DmaRegion> region_;
  std::unique_ptr<DwmacModel> model_;
  Mdio mdio_;
};

// docs/hardware/dwmac.md §2.3 MDIO transaction: PA 25:21, RDA 20:16, CR 11:8, GOC 3:2, GB 0.
TEST_F(PhyTest, MdioReadAndWriteCarryTheFields) {
  DwmacModel::Options options;
  options.phy.address = 3;
  make(options);
  auto id1 = mdio_.read(3, Phy::kPhyId1);
  ASSERT_TRUE(id1.ok());
  EXPECT_EQ(*id1, 0x4F51);
  const std::uint32_t command = model_->peek(reg::kMacMdioAddress);
  EXPECT_EQ((command >> 21) & 0x1F, 3u);
  EXPECT_EQ((command >> 16) & 0x1F, Phy::kPhyId1);
  EXPECT_EQ((command >> 8) & 0xF, 5u);
  EXPECT_EQ((command >> 2) & 3, 3u);  // read
  EXPECT_EQ(command & 1, 0u);         // the model finished it
  ASSERT_TRUE(mdio_.write(3, Phy::kAnar, 0x0061).ok());
  EXPECT_EQ((model_->peek(reg::kMacMdioAddress) >> 2) & 3, 1u);  // write
  EXPECT_EQ(*mdio_.read(3, Phy::kAnar), 0x0061);
  EXPECT_GE(model_->counters().mdio_transactions, 3u);
}

TEST_F(PhyTest, StuckMdioBusTimesOut) {
  DwmacModel::Options options;
  options.mdio_busy_reads = 0;
  make(options);
  auto r = mdio_.read(0, Phy::kBmsr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  EXPECT_EQ(mdio_.write(0, Phy::kBmcr, 0).error(), Error::kTimedOut);
}

// YT8531: ID, one reset, the board settings in the extended registers (rx
// 2200 ps = RXC_DLY_EN + 2 steps; tx 450 ps = 3 steps; 2910 µA = ds 3 on
// the model's 1.8 V LDO), autonegotiation restarted; the link then comes
// up via the specific status register.
TEST_F(PhyTest, Yt8531BringUpAndPolling) {
  make();
  Phy phy(&mdio_, 0);
  ASSERT_TRUE(phy.bring_up({.rx_delay_ps = 2200,
                            .tx_delay_ps = 450,
                            .rx_clock_drive_ua = 2910,
                            .rx_data_drive_ua = 3970})
                  .ok());
  EXPECT_TRUE(phy.is_yt8531());
  EXPECT_FALSE(phy.drive_strength_refused());
  EXPECT_EQ(model_->phy().counters().resets, 1u);
  EXPECT_NE(model_->phy().extended(Phy::kYtChipConfig) & (1u << 8), 0u);
  const std::uint16_t rgmii = model_->phy().extended(Phy::kYtRgmiiConfig1);
  EXPECT_EQ((rgmii >> 10) & 0xF, 2u);
  EXPECT_EQ((rgmii >> 4) & 0xF, 0u);  // 10/100's TX delay untouched, as Linux
  EXPECT_EQ(rgmii & 0xF, 3u);
  // RXC ds 3 in 15:13; RXD ds 6 = bit 12 (ds bit 2) + 10 in 5:4.
  EXPECT_EQ(model_->phy().extended(Phy::kYtPadDrive), 3u << 13 | 1u << 12 | 2u << 4);
  EXPECT_EQ(model_->phy().extended(Phy::kYtClockGating) & (1u << 12), 0u);  // RXC kept on
  PhyLink link;
  for (int i = 0; i < 10 && !link.up; ++i) link = *phy.poll();
  EXPECT_EQ(link, (PhyLink{.up = true, .speed = LinkSpeed::k1000, .full_duplex = true}));

  // A drop that is already over by the next poll is still seen once
  // (BMSR.link latched low); then the link is back at the new speed.
  model_->phy().set_link(false);
  model_->phy().set_link(true, PhyModel::Speed::k100, false);
  EXPECT_FALSE(phy.poll()->up);
  link = PhyLink{};
  for (int i = 0; i < 10 && !link.up; ++i) link = *phy.poll();
  EXPECT_EQ(link, (PhyLink{.up = true, .speed = LinkSpeed::k100, .full_duplex = false}));
}

// The TX clock inversion follows the speed at every link change, as
// Linux's yt8531_link_change_notify: set where the board asks, cleared
// elsewhere; nothing while the link is down.
TEST_F(PhyTest, TxClockInversionFollowsTheSpeed) {
  make();
  Phy phy(&mdio_, 0);
  ASSERT_TRUE(phy.bring_up({.tx_clock_inverted = Yt8531Settings::kInvert1000}).ok());
  auto inverted = [&] { return (model_->phy().extended(Phy::kYtRgmiiConfig1) & (1u << 14)) != 0; };
  EXPECT_FALSE(inverted());
  ASSERT_TRUE(phy.apply_link({.up = true, .speed = LinkSpeed::k1000}).ok());
  EXPECT_TRUE(inverted());
  ASSERT_TRUE(phy.apply_link({.up = false}).ok());
  EXPECT_TRUE(inverted());
  ASSERT_TRUE(phy.apply_link({.up = true, .speed = LinkSpeed::k100}).ok());
  EXPECT_FALSE(inverted());
}

// Settings with no encoding are refused before anything is written; a drive
// strength the LDO voltage does not offer is skipped and reported.
TEST_F(PhyTest, Yt8531SettingsOutOfRange) {
  make();
  Phy phy(&mdio_, 0);
  EXPECT_EQ(phy.bring_up({.rx_delay_ps = 1000}).error(), Error::kInvalidArgument);
  EXPECT_EQ(phy.bring_up({.tx_delay_ps = 2400}).error(), Error::kInvalidArgument);
  EXPECT_EQ(phy.bring_up({.rx_clock_drive_ua = 2900}).error(), Error::kInvalidArgument);
  EXPECT_EQ(model_->phy().counters().resets, 0u);
  ASSERT_TRUE(phy.bring_up({.rx_clock_drive_ua = 4680}).ok());  // a 3.3 V value on 1.8 V
  EXPECT_TRUE(phy.drive_strength_refused());
  EXPECT_EQ(phy.ldo_field(), 2u);
  EXPECT_EQ(model_->phy().extended(Phy::kYtPadDrive), 0u);
}

static_assert(Phy::rx_delay_code(1950) == 13);  // the first half wins, as Linux's table
static_assert(Phy::rx_delay_code(1900) == 16);  // RXC_DLY_EN, no steps
static_assert(Phy::rx_delay_code(4150) == 31);
static_assert(Phy::rx_delay_code(2000) == -1);
static_assert(Phy::tx_delay_code(2250) == 15 && Phy::tx_delay_code(2400) == -1);
static_assert(Phy::drive_strength_code(2910, true) == 3);
static_assert(Phy::drive_strength_code(2910, false) == -1);

// Another PHY: no extended registers touched, speed and duplex resolved from
// the advertisements (1000BASE-T status, then ANAR & ANLPAR).
TEST_F(PhyTest, GenericPhyResolvesFromAdvertisements) {
  DwmacModel::Options options;
  options.phy.id = 0x001C'C916;  // a Realtek RTL8211F
  make(options);
  Phy phy(&mdio_, 0);
  ASSERT_TRUE(phy.bring_up({.rx_delay_ps = 1500}).ok());
  EXPECT_FALSE(phy.is_yt8531());
  EXPECT_EQ(model_->phy().extended(Phy::kYtRgmiiConfig1) >> 10 & 0xF, 0u);
  PhyLink link;
  for (int i = 0; i < 10 && !link.up; ++i) link = *phy.poll();
  EXPECT_EQ(link, (PhyLink{.up = true, .speed = LinkSpeed::k1000, .full_duplex = true}));
  model_->phy().set_link(false);
  EXPECT_FALSE(phy.poll()->up);
  model_->phy().set_link(true, PhyModel::Speed::k100, true);
  link = PhyLink{};
  for (int i = 0; i < 10 && !link.up; ++i) link = *phy.poll();
  EXPECT_EQ(link, (PhyLink{.up = true, .speed = LinkSpeed::k100, .full_duplex = true}));
}

TEST_F(PhyTest, NothingAtTheAddressIsNotFound) {
  make();
  Phy phy(&mdio_, 9);
  auto r = phy.bring_up({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kNotFound);
}

}  // namespace
}  // namespace starling::phy
