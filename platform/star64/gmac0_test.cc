// Host test: the Star64's GMAC0 start-up (clocks and resets, MAC address,
// DWMAC driver init, link wait) against the DWMAC device model
// (//drivers/dwmac/model:model) and fakes of the JH7110's clock and syscon
// blocks, on the host board's clock and console.

#include "platform/star64/gmac0.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/registers.h"
#include "kernel/fdt/blob_builder.h"
#include "kernel/mem/page_allocator.h"
#include "platform/star64/mac_address.h"

namespace starling::board {
namespace {

using model::DwmacModel;

constexpr std::size_t kRegionBytes = std::size_t{4} << 20;

// A clock/reset/syscon block as plain memory; the AONCRG's reset status
// follows its assert word unless `stuck`.
class FakeBlock : public mmio::RegisterBus {
 public:
  virtual ~FakeBlock() = default;
  std::uint32_t read32(std::uint32_t offset) override {
    if (offset == jh7110::kAonResetStatus) return stuck ? 0 : ~words[jh7110::kAonResetAssert] & 3;
    return words[offset];
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    ++writes;
    words[offset] = value;
  }
  std::map<std::uint32_t, std::uint32_t> words;
  int writes = 0;
  bool stuck = false;
};

std::vector<std::byte> tree_with_mac(const hal::MacAddress& mac, std::string_view bootargs) {
  std::vector<std::byte> bytes;
  for (auto b : mac.bytes) bytes.push_back(static_cast<std::byte>(b));
  fdt::testing::BlobBuilder b;
  b.begin_node("")
      .begin_node("chosen")
      .property_string("bootargs", bootargs)
      .end_node()
      .begin_node("soc")
      .begin_node("ethernet@16030000")
      .property("local-mac-address", bytes)
      .end_node()
      .end_node()
      .end_node()
      .end();
  return b.build();
}

class Gmac0Test : public ::testing::Test {
 protected:
  Gmac0Test() {
    aon_.words[jh7110::kAonResetAssert] = 3;  // U-Boot left GMAC0 in reset
    region_ = model::DmaRegion::create(kRegionBytes);
    EXPECT_NE(region_, nullptr);
    const mem::PhysRange range{region_->base(), region_->base() + region_->size()};
    EXPECT_TRUE(pages_.init({&range, 1}).ok());
  }

  Gmac0Setup setup(const fdt::DeviceTree* tree, std::uint64_t link_wait_ns) {
    Gmac0Setup s;
    s.blocks = {.aon_crg = mmio::Registers(jh7110::kAonCrgBase, &aon_),
                .sys_crg = mmio::Registers(jh7110::kSysCrgBase, &sys_),
                .aon_syscon = mmio::Registers(jh7110::kAonSysconBase, &syscon_)};
    s.model = model_.get();
    s.irq = 0;  // no PLIC on the host: nothing to attach
    s.tree = tree;
    s.link_wait_ns = link_wait_ns;
    s.link_poll_interval_ns = 1'000'000;
    return s;
  }

  // Runs start_gmac0 and returns what it printed.
  std::string run(const Gmac0Setup& s, Result<void>* result) {
    ::testing::internal::CaptureStdout();
    *result = start_gmac0(gmac_, s, pages_);
    return ::testing::internal::GetCapturedStdout();
  }

  // MAC_VERSION as the JH7110 reports it: bits 7:0 SNPSVER 0x52, 15:8
  // USERVER 0x41 (Linux's "User ID: 0x41, Synopsys ID: 0x52").
  static DwmacModel::Options jh7110() {
    DwmacModel::Options options;
    options.version = 0x0000'4152;
    return options;
  }

  void make_model(DwmacModel::Options options = jh7110()) {
    model_ = std::make_unique<DwmacModel>(*region_, options);
  }

  FakeBlock aon_, sys_, syscon_;
  std::unique_ptr<model::DmaRegion> region_;
  mem::PageAllocator pages_;
  std::unique_ptr<DwmacModel> model_;
  dwmac::Dwmac gmac_;
};

TEST_F(Gmac0Test, BringsUpTheMacWithTheDeviceTreeAddressAndReportsTheLink) {
  make_model();
  const auto blob = tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}, "ip=dhcp");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 2'000'000'000), &result);
  ASSERT_TRUE(result.ok()) << out;
  // Out of reset, RGMII selected, before the driver ran.
  EXPECT_EQ(aon_.words[jh7110::kAonResetAssert] & 3, 0u);
  EXPECT_EQ(syscon_.words[jh7110::kAonSysconGmac0Mode], jh7110::kPhyModeRgmii);
  // The DT's address, in the MAC's address registers (HIGH = bytes 5:4).
  EXPECT_EQ(model_->peek(dwmac::reg::kMacAddress0High) & 0xFFFF, 0x6A75u);
  EXPECT_EQ(model_->peek(dwmac::reg::kMacAddress0Low), 0x0039CF6Cu);
  // The board's burst choice: 32/32 without x8.
  EXPECT_EQ(model_->peek(dwmac::reg::kDmaCh0Control) & dwmac::reg::ch_control::kPblx8, 0u);
  EXPECT_EQ((model_->peek(dwmac::reg::kDmaCh0TxControl) >> 16) & 0x3F, 32u);
  EXPECT_EQ((model_->peek(dwmac::reg::kDmaCh0RxControl) >> 16) & 0x3F, 32u);
  EXPECT_EQ(gmac_.link(), hal::LinkState::kUp);
  EXPECT_NE(out.find("star64: eth0 MAC 6c:cf:39:00:75:6a (device tree)"), std::string::npos) << out;
  EXPECT_NE(out.find("star64: link up at 1000 Mb/s full duplex"), std::string::npos) << out;
}

// The lab-measured set-up unless the command line says otherwise, and the
// line that says which is in use (the console ends lines with CR LF).
constexpr std::string_view kDefaultDmaLine =
    "star64: gmac0 DMA store-and-forward, TxPBL 32 RxPBL 32 (x1), AXI bursts 4..16 fixed, "
    "4 outstanding, TX checksum insertion on, RX checksum checking on "
    "(starling.gmac=sddf, default)\r\n";

TEST_F(Gmac0Test, DefaultDmaSetUpIsStoreAndForwardAndSaysSo) {
  make_model();
  const auto blob = tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}, "ip=dhcp");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 0), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_NE(out.find(kDefaultDmaLine), std::string::npos) << out;
  EXPECT_EQ(out.find("starling.gmac=: "), std::string::npos) << out;
  EXPECT_NE(model_->peek(dwmac::reg::kMtlTxq0OperationMode) & dwmac::reg::mtl_txq::kTsf, 0u);
  EXPECT_NE(model_->peek(dwmac::reg::kMtlRxq0OperationMode) & dwmac::reg::mtl_rxq::kRsf, 0u);
  EXPECT_EQ(model_->peek(dwmac::reg::kDmaSysbusMode), 0x0303'000Fu);
  EXPECT_TRUE(gmac_.enable_tx_checksum_offload().udp);
}

TEST_F(Gmac0Test, LinuxPresetFromBootargsProgramsThresholdMode) {
  make_model();
  const auto blob =
      tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}, "console=ttyS0 starling.gmac=linux");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 0), &result);
  ASSERT_TRUE(result.ok()) << out;
  using namespace dwmac::reg;
  EXPECT_EQ(model_->peek(kMtlTxq0OperationMode) & mtl_txq::kTsf, 0u);
  EXPECT_EQ(model_->peek(kMtlRxq0OperationMode) & mtl_rxq::kRsf, 0u);
  EXPECT_EQ(model_->tx_threshold(), 64u);
  EXPECT_EQ(model_->rx_threshold(), 64u);
  EXPECT_EQ((model_->peek(kDmaCh0TxControl) >> 16) & 0x3F, 16u);
  EXPECT_EQ((model_->peek(kDmaCh0RxControl) >> 16) & 0x3F, 16u);
  EXPECT_EQ(model_->peek(kDmaCh0Control) & ch_control::kPblx8, 0u);
  EXPECT_EQ(model_->peek(kDmaSysbusMode), 0x0303'00F1u);
  EXPECT_EQ(gmac_.enable_tx_checksum_offload(), hal::TxChecksumOffload{});
  // The PHY wiring is still the board's.
  EXPECT_EQ(gmac_.params().phy_rx_delay_ps, 1500u);
  EXPECT_NE(out.find("star64: gmac0 DMA threshold TX 64 B RX 64 B, TxPBL 16 RxPBL 16 (x1), AXI "
                     "bursts 32..256 fixed, 4 outstanding, TX checksum insertion off (threshold "
                     "mode), RX checksum checking on (starling.gmac=linux)\r\n"),
            std::string::npos)
      << out;
}

TEST_F(Gmac0Test, OverridesAreShownAsGiven) {
  make_model();
  const auto blob = tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}},
                                  "starling.gmac=linux,txpbl=8,rxpbl=8,pblx8,osr=16,csum=off");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 0), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_NE(model_->peek(dwmac::reg::kDmaCh0Control) & dwmac::reg::ch_control::kPblx8, 0u);
  EXPECT_EQ(model_->peek(dwmac::reg::kDmaSysbusMode), 0x0F0F'00F1u);
  EXPECT_EQ(model_->peek(dwmac::reg::kMacConfiguration) & dwmac::reg::mac_config::kIpc, 0u);
  EXPECT_NE(out.find("star64: gmac0 DMA threshold TX 64 B RX 64 B, TxPBL 8 RxPBL 8 (x8), AXI "
                     "bursts 32..256 fixed, 16 outstanding, TX checksum insertion off "
                     "(csum=off), RX checksum checking off "
                     "(starling.gmac=linux,txpbl=8,rxpbl=8,pblx8,osr=16,csum=off)\r\n"),
            std::string::npos)
      << out;
}

TEST_F(Gmac0Test, BadGmacTokenIsExplainedAndTheDefaultKept) {
  make_model();
  const auto blob =
      tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}, "starling.gmac=linux,txpbl=7");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 0), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_NE(out.find("star64: ignoring starling.gmac=linux,txpbl=7 (at \"txpbl=7\"): a PBL is "
                     "1, 2, 4, 8, 16 or 32 beats (pblx8 multiplies both by 8); fix: setenv "
                     "bootargs \"... starling.gmac=linux,txpbl=8\"; keeping the default DMA "
                     "set-up\r\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(kDefaultDmaLine), std::string::npos) << out;
  // Nothing of the refused token reached the MAC.
  EXPECT_NE(model_->peek(dwmac::reg::kMtlTxq0OperationMode) & dwmac::reg::mtl_txq::kTsf, 0u);
  EXPECT_EQ((model_->peek(dwmac::reg::kDmaCh0TxControl) >> 16) & 0x3F, 32u);
}

TEST_F(Gmac0Test, BoardParametersOtherThanAPresetAreLabelledSo) {
  make_model();
  Gmac0Setup s = setup(nullptr, 0);
  s.params.tx_pbl = 2;
  s.params.rx_pbl = 8;
  s.params.pbl_x8 = true;
  Result<void> result;
  const std::string out = run(s, &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_NE(out.find("TxPBL 2 RxPBL 8 (x8)"), std::string::npos) << out;
  EXPECT_NE(out.find("(the board's parameters)\r\n"), std::string::npos) << out;
}

TEST_F(Gmac0Test, BootargsAddressWinsAndAHundredMegabitHalfDuplexLinkIsReported) {
  DwmacModel::Options options = jh7110();
  options.phy.speed = model::PhyModel::Speed::k100;
  options.phy.full_duplex = false;
  make_model(options);
  const auto blob = tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}},
                                  "console=ttyS0 starling.mac=02:12:34:56:78:9a");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 2'000'000'000), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_EQ(gmac_.mac(), (hal::MacAddress{{0x02, 0x12, 0x34, 0x56, 0x78, 0x9a}}));
  EXPECT_EQ(model_->peek(dwmac::reg::kMacAddress0Low), 0x56341202u);
  EXPECT_NE(out.find("(bootargs)"), std::string::npos) << out;
  EXPECT_NE(out.find("star64: link up at 100 Mb/s half duplex"), std::string::npos) << out;
}

TEST_F(Gmac0Test, NoTreeMeansTheDefaultAddress) {
  make_model();
  Result<void> result;
  const std::string out = run(setup(nullptr, 2'000'000'000), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_EQ(gmac_.mac(), kDefaultMac);
  EXPECT_NE(out.find("star64: eth0 MAC 6c:cf:39:00:75:5b (default)"), std::string::npos) << out;
}

TEST_F(Gmac0Test, MalformedBootargIsExplainedAndTheDeviceTreeAddressKept) {
  make_model();
  const auto blob = tree_with_mac({{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}, "starling.mac=6c:cf:39");
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<void> result;
  const std::string out = run(setup(&*tree, 2'000'000'000), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_EQ(gmac_.mac(), (hal::MacAddress{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x6a}}));
  EXPECT_NE(out.find("star64: ignoring starling.mac=: not a MAC address"), std::string::npos)
      << out;
  EXPECT_NE(out.find("starling.mac=6c:cf:39:00:12:34"), std::string::npos) << out;
}

TEST_F(Gmac0Test, NoLinkWaitsTheTimeoutThenCarriesOn) {
  DwmacModel::Options options = jh7110();
  options.phy.link_up = false;
  make_model(options);
  Result<void> result;
  const std::string out = run(setup(nullptr, 1'000'000'000), &result);
  ASSERT_TRUE(result.ok()) << out;
  EXPECT_EQ(gmac_.link(), hal::LinkState::kDown);
  EXPECT_NE(out.find("star64: no link after 1 s: check the cable"), std::string::npos) << out;
  // The link comes up later: the driver's own polling sees it.
  model_->phy().set_link(true);
  for (int i = 0; i < 10 && gmac_.link() != hal::LinkState::kUp; ++i) {
    ASSERT_TRUE(gmac_.poll_link().ok());
  }
  EXPECT_EQ(gmac_.link(), hal::LinkState::kUp);
}

TEST_F(Gmac0Test, ResetThatNeverReleasesStopsBeforeTheDriverTouchesTheMac) {
  make_model();
  aon_.stuck = true;
  Result<void> result;
  const std::string out = run(setup(nullptr, 1'000'000'000), &result);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::kTimedOut);
  EXPECT_EQ(model_->counters().resets, 0u);
  EXPECT_EQ(model_->counters().mdio_transactions, 0u);
  EXPECT_NE(out.find("star64: GMAC0 reset did not release"), std::string::npos) << out;
}

TEST_F(Gmac0Test, UnsupportedCoreIsRefused) {
  DwmacModel::Options options;
  options.version = 0x0000'4241;  // SNPSVER 0x42: a 4.20 core
  make_model(options);
  Result<void> result;
  const std::string out = run(setup(nullptr, 1'000'000'000), &result);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::kUnsupported);
  EXPECT_NE(out.find("star64: GMAC0 init failed"), std::string::npos) << out;
}

}  // namespace
}  // namespace starling::board
