// Host test: the MDIO master and the clause-22 PHY code against the device
// model's MDIO bus and PHY (//drivers/dwmac/model:model), without the rest of
// the driver.

#include "drivers/dwmac/phy.h"

#include <gtest/gtest.h>

#include <memory>

#include "drivers/dwmac/mdio.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/registers.h"

namespace starling::dwmac {
namespace {

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

// YT8531: ID, one reset, delays in the extended registers (rx 2100 ps =
// RXC_DLY_EN + 200 ps ~ 1 step; tx 450 ps = 3 steps), autonegotiation
// restarted; the link then comes up via the specific status register.
TEST_F(PhyTest, Yt8531BringUpAndPolling) {
  make();
  Phy phy(&mdio_, 0);
  ASSERT_TRUE(phy.bring_up({.rx_ps = 2100, .tx_ps = 450}).ok());
  EXPECT_TRUE(phy.is_yt8531());
  EXPECT_EQ(model_->phy().counters().resets, 1u);
  EXPECT_NE(model_->phy().extended(Phy::kYtChipConfig) & (1u << 8), 0u);
  const std::uint16_t rgmii = model_->phy().extended(Phy::kYtRgmiiConfig1);
  EXPECT_EQ((rgmii >> 10) & 0xF, 1u);
  EXPECT_EQ((rgmii >> 4) & 0xF, 3u);
  EXPECT_EQ(rgmii & 0xF, 3u);
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

// Another PHY: no extended registers touched, speed and duplex resolved from
// the advertisements (1000BASE-T status, then ANAR & ANLPAR).
TEST_F(PhyTest, GenericPhyResolvesFromAdvertisements) {
  DwmacModel::Options options;
  options.phy.id = 0x001C'C916;  // a Realtek RTL8211F
  make(options);
  Phy phy(&mdio_, 0);
  ASSERT_TRUE(phy.bring_up({.rx_ps = 1500}).ok());
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
}  // namespace starling::dwmac
