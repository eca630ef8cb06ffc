#include "platform/star64/gmac_params.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/fdt/tree_writer.h"

namespace starling::board {
namespace {

using Params = dwmac::Dwmac::BoardParams;
using DmaMode = dwmac::Dwmac::DmaMode;

// The board's MAC parameters, and its PHY wiring a preset must not touch.
constexpr Params kBase{.tx_pbl = 32, .rx_pbl = 32, .pbl_x8 = false, .mdio_clock_range = 5};
constexpr dwmac::PhyParams kBasePhy{.address = 0,
                                    .settings = {.rx_delay_ps = 1500,
                                                 .tx_delay_ps = 1950,
                                                 .tx_clock_inverted = 7,
                                                 .rx_clock_drive_ua = 2910,
                                                 .rx_data_drive_ua = 2910}};

GmacChoice parse(std::string_view value) {
  // Kept alive: the result's views point into it.
  static std::vector<std::string> bootargs;
  bootargs.push_back("console=ttyS0,115200 starling.gmac=" + std::string(value) + " ip=dhcp");
  return parse_gmac_bootargs(bootargs.back(), kBase, kBasePhy);
}

void expect_sddf(const Params& p) {
  EXPECT_EQ(p.dma_mode, DmaMode::kStoreAndForward);
  EXPECT_EQ(p.tx_pbl, 32u);
  EXPECT_EQ(p.rx_pbl, 32u);
  EXPECT_FALSE(p.pbl_x8);
  EXPECT_TRUE(p.fixed_burst);
  EXPECT_EQ(p.min_burst, 4u);
  EXPECT_EQ(p.max_burst, 16u);
  EXPECT_EQ(p.axi_outstanding, 4u);
  EXPECT_TRUE(p.checksum_offload);
}

void expect_phy_kept(const Params& p, const dwmac::PhyParams& phy) {
  EXPECT_EQ(phy.settings, kBasePhy.settings);
  EXPECT_EQ(phy.address, 0u);
  EXPECT_EQ(p.mdio_clock_range, 5u);
  EXPECT_TRUE(p.descriptor_prefetch);
}

TEST(GmacParamsTest, NoTokenKeepsTheBoardParameters) {
  const GmacChoice c =
      parse_gmac_bootargs("console=ttyS0 starling.mac=02:00:00:00:00:01", kBase, kBasePhy);
  EXPECT_FALSE(c.found);
  EXPECT_EQ(c.error, GmacError::kNone);
  EXPECT_TRUE(c.value.empty());
  expect_sddf(c.params);
  expect_phy_kept(c.params, c.phy);
  // Neither a longer key nor a prefix counts.
  EXPECT_FALSE(
      parse_gmac_bootargs("starling.gmacs=linux xstarling.gmac=linux", kBase, kBasePhy).found);
}

// The driver's defaults are the sddf preset: one source of truth.
TEST(GmacParamsTest, TheDefaultIsTheSddfPreset) {
  EXPECT_TRUE(same_dma_setup(Params{}, apply_gmac_preset(GmacPreset::kSddf, Params{})));
  EXPECT_TRUE(same_dma_setup(kBase, apply_gmac_preset(GmacPreset::kSddf, kBase)));
  EXPECT_EQ(dwmac::Dwmac::sysbus_mode(apply_gmac_preset(GmacPreset::kSddf, kBase)),
            dwmac::Dwmac::sysbus_mode(Params{}));
  EXPECT_FALSE(same_dma_setup(kBase, apply_gmac_preset(GmacPreset::kLinux, kBase)));
}

TEST(GmacParamsTest, SddfPreset) {
  const GmacChoice c = parse("sddf");
  EXPECT_TRUE(c.found);
  EXPECT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.value, "sddf");
  expect_sddf(c.params);
  expect_phy_kept(c.params, c.phy);
}

TEST(GmacParamsTest, LinuxPreset) {
  const GmacChoice c = parse("linux");
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.value, "linux");
  const Params& p = c.params;
  EXPECT_EQ(p.dma_mode, DmaMode::kThreshold);
  EXPECT_EQ(p.tx_threshold, 64u);
  EXPECT_EQ(p.rx_threshold, 64u);
  EXPECT_EQ(p.tx_pbl, 16u);
  EXPECT_EQ(p.rx_pbl, 16u);
  EXPECT_FALSE(p.pbl_x8);
  EXPECT_TRUE(p.fixed_burst);
  EXPECT_EQ(p.min_burst, 32u);
  EXPECT_EQ(p.max_burst, 256u);
  EXPECT_EQ(p.axi_outstanding, 4u);  // field value 3
  EXPECT_TRUE(p.checksum_offload);   // RX checking; no TX insertion in threshold mode
  expect_phy_kept(p, c.phy);
  // FB | BLEN32..BLEN256 | RD_OSR_LMT = WR_OSR_LMT = 3.
  EXPECT_EQ(dwmac::Dwmac::sysbus_mode(p), 0x0303'00F1u);
}

TEST(GmacParamsTest, PresetWithEveryOverride) {
  const GmacChoice c =
      parse("linux,ttc=128,rtc=32,txpbl=8,rxpbl=4,pblx8,blen=64..128,fb=off,osr=16,csum=off");
  ASSERT_EQ(c.error, GmacError::kNone) << gmac_error_text(c.error) << " " << c.item;
  EXPECT_EQ(c.value,
            "linux,ttc=128,rtc=32,txpbl=8,rxpbl=4,pblx8,blen=64..128,fb=off,osr=16,csum=off");
  const Params& p = c.params;
  EXPECT_EQ(p.dma_mode, DmaMode::kThreshold);
  EXPECT_EQ(p.tx_threshold, 128u);
  EXPECT_EQ(p.rx_threshold, 32u);
  EXPECT_EQ(p.tx_pbl, 8u);
  EXPECT_EQ(p.rx_pbl, 4u);
  EXPECT_TRUE(p.pbl_x8);
  EXPECT_FALSE(p.fixed_burst);
  EXPECT_EQ(p.min_burst, 64u);
  EXPECT_EQ(p.max_burst, 128u);
  EXPECT_EQ(p.axi_outstanding, 16u);
  EXPECT_FALSE(p.checksum_offload);
  expect_phy_kept(p, c.phy);
}

TEST(GmacParamsTest, OverridesAloneApplyToTheDefault) {
  GmacChoice c = parse("mode=thr,ttc=256");
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.params.dma_mode, DmaMode::kThreshold);
  EXPECT_EQ(c.params.tx_threshold, 256u);
  EXPECT_EQ(c.params.rx_threshold, 64u);
  EXPECT_EQ(c.params.tx_pbl, 32u);

  c = parse("pbl=4,pblx8=on");
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.params.tx_pbl, 4u);
  EXPECT_EQ(c.params.rx_pbl, 4u);
  EXPECT_TRUE(c.params.pbl_x8);

  c = parse("linux,mode=sf,blen=256,csum=on");
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.params.dma_mode, DmaMode::kStoreAndForward);
  EXPECT_EQ(c.params.tx_pbl, 16u);
  EXPECT_EQ(c.params.min_burst, 4u);  // blen=N is 4..N
  EXPECT_EQ(c.params.max_burst, 256u);

  c = parse("blen=16..16,pblx8=off,fb=on,osr=1");
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.params.min_burst, 16u);
  EXPECT_EQ(c.params.max_burst, 16u);
  EXPECT_FALSE(c.params.pbl_x8);
  EXPECT_EQ(c.params.axi_outstanding, 1u);
  EXPECT_EQ(dwmac::Dwmac::sysbus_mode(c.params),
            dwmac::reg::sysbus::kFb | dwmac::reg::sysbus::kBlen16);
}

struct Refusal {
  const char* value;
  GmacError error;
  const char* item;
};

// Each refusal: the whole token ignored (the board's parameters, nothing of
// the token applied), the cause and the item named.
TEST(GmacParamsTest, BadTokensAreIgnoredWhole) {
  const Refusal cases[] = {
      {"", GmacError::kEmpty, ""},
      {"linux,,txpbl=8", GmacError::kEmpty, ""},
      {"linux,", GmacError::kEmpty, ""},
      {"linux,txpbl=", GmacError::kEmpty, "txpbl="},
      {"bsd", GmacError::kUnknownPreset, "bsd"},
      {"Linux", GmacError::kUnknownPreset, "Linux"},
      {"txpbl=8,linux", GmacError::kPresetNotFirst, "linux"},
      {"linux,sddf", GmacError::kPresetNotFirst, "sddf"},
      {"linux,speed=1000", GmacError::kUnknownKey, "speed=1000"},
      {"linux,=8", GmacError::kUnknownKey, "=8"},
      {"linux,txpbl=8,txpbl=16", GmacError::kRepeatedKey, "txpbl=16"},
      {"pbl=8,rxpbl=8", GmacError::kRepeatedKey, "rxpbl=8"},
      {"pblx8,pblx8=off", GmacError::kRepeatedKey, "pblx8=off"},
      {"mode=cut", GmacError::kBadMode, "mode=cut"},
      {"linux,ttc=100", GmacError::kBadTxThreshold, "ttc=100"},
      {"linux,ttc=1024", GmacError::kBadTxThreshold, "ttc=1024"},
      {"linux,rtc=256", GmacError::kBadRxThreshold, "rtc=256"},
      {"linux,rtc=0x40", GmacError::kBadRxThreshold, "rtc=0x40"},
      {"linux,txpbl=7", GmacError::kBadPbl, "txpbl=7"},
      {"linux,txpbl=64", GmacError::kBadPbl, "txpbl=64"},
      {"rxpbl=0", GmacError::kBadPbl, "rxpbl=0"},
      {"pbl=-8", GmacError::kBadPbl, "pbl=-8"},
      {"txpbl=99999999999", GmacError::kBadPbl, "txpbl=99999999999"},
      {"txpbl=16 ", GmacError::kNone, ""},  // the space ends the token
      {"pblx8=yes", GmacError::kBadSwitch, "pblx8=yes"},
      {"fb=1", GmacError::kBadSwitch, "fb=1"},
      {"csum=true", GmacError::kBadSwitch, "csum=true"},
      {"blen=3", GmacError::kBadBurst, "blen=3"},
      {"blen=48", GmacError::kBadBurst, "blen=48"},
      {"blen=512", GmacError::kBadBurst, "blen=512"},
      {"blen=256..32", GmacError::kBadBurst, "blen=256..32"},
      {"blen=32..", GmacError::kBadBurst, "blen=32.."},
      {"blen=32-256", GmacError::kBadBurst, "blen=32-256"},
      {"osr=0", GmacError::kBadOutstanding, "osr=0"},
      {"osr=17", GmacError::kBadOutstanding, "osr=17"},
      {"sddf,ttc=64", GmacError::kThresholdUnused, "ttc=64"},
      {"linux,rtc=32,mode=sf", GmacError::kThresholdUnused, "rtc=32"},
      {"rxdelay=1000", GmacError::kBadRxDelay, "rxdelay=1000"},
      {"rxdelay=4300", GmacError::kBadRxDelay, "rxdelay=4300"},
      {"txdelay=1900", GmacError::kBadTxDelay, "txdelay=1900"},
      {"txdelay=2400", GmacError::kBadTxDelay, "txdelay=2400"},
      {"txinv=1000+1000", GmacError::kBadInversion, "txinv=1000+1000"},
      {"txinv=1G", GmacError::kBadInversion, "txinv=1G"},
      {"txinv=", GmacError::kEmpty, "txinv="},
      {"rxc_ua=2900", GmacError::kBadDrive, "rxc_ua=2900"},
      {"rxd_ua=0", GmacError::kBadDrive, "rxd_ua=0"},
      {"keeprxc=no", GmacError::kBadSwitch, "keeprxc=no"},
      {"selftest=0", GmacError::kBadSwitch, "selftest=0"},
      {"debug=yes", GmacError::kBadSwitch, "debug=yes"},
      {"debug,debug=off", GmacError::kRepeatedKey, "debug=off"},
      {"verbose", GmacError::kUnknownPreset, "verbose"},
      {"txdelay=1800,txdelay=1950", GmacError::kRepeatedKey, "txdelay=1950"},
  };
  for (const Refusal& r : cases) {
    SCOPED_TRACE(r.value);
    const GmacChoice c = parse(r.value);
    EXPECT_TRUE(c.found);
    EXPECT_EQ(c.error, r.error) << gmac_error_text(c.error);
    if (r.error == GmacError::kNone) continue;
    EXPECT_EQ(c.item, r.item);
    EXPECT_EQ(c.refused, std::string_view(r.value));
    EXPECT_TRUE(c.value.empty());
    expect_sddf(c.params);  // nothing applied, not even the preset before the error
    expect_phy_kept(c.params, c.phy);
  }
}

// The PHY keys, in the device tree's units, on top of the board's values
// and any preset; the DMA fields untouched.
TEST(GmacParamsTest, PhyKeys) {
  const GmacChoice c =
      parse("linux,rxdelay=2050,txdelay=1800,txinv=10+1000,rxc_ua=3970,rxd_ua=4680,keeprxc=off");
  ASSERT_EQ(c.error, GmacError::kNone) << gmac_error_text(c.error);
  EXPECT_EQ(c.phy.settings.rx_delay_ps, 2050u);
  EXPECT_EQ(c.phy.settings.tx_delay_ps, 1800u);
  EXPECT_EQ(c.phy.settings.tx_clock_inverted,
            dwmac::Yt8531Settings::kInvert10 | dwmac::Yt8531Settings::kInvert1000);
  EXPECT_EQ(c.phy.settings.rx_clock_drive_ua, 3970u);
  EXPECT_EQ(c.phy.settings.rx_data_drive_ua, 4680u);  // a 3.3 V value: the PHY decides
  EXPECT_FALSE(c.phy.settings.keep_rx_clock);
  EXPECT_EQ(c.params.dma_mode, DmaMode::kThreshold);
  const GmacChoice none = parse("txinv=none");
  ASSERT_EQ(none.error, GmacError::kNone);
  EXPECT_EQ(none.phy.settings.tx_clock_inverted, 0u);
  expect_sddf(none.params);
}

// The first power-on's diagnostics: the self-test is on unless turned off,
// the register dumps off unless `debug` (bare or =on) asks; neither touches
// the DMA or PHY set-up.
TEST(GmacParamsTest, DiagnosticKeys) {
  EXPECT_TRUE(kBase.self_test);
  EXPECT_FALSE(kBase.debug);
  const GmacChoice off = parse("selftest=off");
  ASSERT_EQ(off.error, GmacError::kNone) << gmac_error_text(off.error);
  EXPECT_FALSE(off.params.self_test);
  EXPECT_FALSE(off.params.debug);
  expect_sddf(off.params);
  expect_phy_kept(off.params, off.phy);
  const GmacChoice debug = parse("linux,debug");
  ASSERT_EQ(debug.error, GmacError::kNone) << gmac_error_text(debug.error);
  EXPECT_TRUE(debug.params.debug);
  EXPECT_TRUE(debug.params.self_test);
  EXPECT_EQ(debug.params.dma_mode, DmaMode::kThreshold);
  const GmacChoice both = parse("debug=on,selftest=on");
  ASSERT_EQ(both.error, GmacError::kNone);
  EXPECT_TRUE(both.params.debug);
  EXPECT_TRUE(both.params.self_test);
}

TEST(GmacParamsTest, TwoTokensAreBothIgnored) {
  const GmacChoice c =
      parse_gmac_bootargs("starling.gmac=linux starling.gmac=linux,osr=16", kBase, kBasePhy);
  EXPECT_TRUE(c.found);
  EXPECT_EQ(c.error, GmacError::kDuplicate);
  EXPECT_EQ(c.refused, "linux");  // the first; the message says there are more
  EXPECT_TRUE(c.item.empty());
  EXPECT_TRUE(c.value.empty());
  expect_sddf(c.params);
}

// Every error has a cause and a fix, and every fix is itself accepted.
TEST(GmacParamsTest, EveryFixParses) {
  for (auto e = static_cast<unsigned>(GmacError::kEmpty);
       e <= static_cast<unsigned>(GmacError::kBadDrive); ++e) {
    const auto error = static_cast<GmacError>(e);
    SCOPED_TRACE(gmac_error_text(error));
    EXPECT_NE(std::string_view(gmac_error_text(error)), "?");
    const std::string_view fix = gmac_error_fix(error);
    ASSERT_EQ(fix.substr(0, kGmacBootarg.size()), kGmacBootarg);
    const GmacChoice c = parse_gmac_bootargs(fix, kBase, kBasePhy);
    EXPECT_EQ(c.error, GmacError::kNone) << fix;
    EXPECT_TRUE(c.found);
  }
}

// The refusals that list keys list the declared ones, in their order.
TEST(GmacParamsTest, TheRefusalsListTheDeclaredKeys) {
  std::string keys, bare;
  for (const GmacKey& key : gmac_keys()) {
    keys += (keys.empty() ? "" : ", ") + std::string(key.key);
    if (key.bare) bare += (bare.empty() ? "" : " and ") + std::string(key.key);
  }
  EXPECT_EQ(gmac_error_text(GmacError::kUnknownKey), "unknown key: the keys are " + keys);
  EXPECT_NE(std::string_view(gmac_error_text(GmacError::kUnknownPreset))
                .find("(and the bare words " + bare + ")"),
            std::string_view::npos);
}

// Every declaration is whole: a field to set and read (the documentation's
// last column reads the board's), the error a wrong value gets, one line of
// help; and each key's field is its own (writing back what it reads
// changes nothing else).
TEST(GmacParamsTest, EveryDeclarationIsWhole) {
  for (const GmacKey& key : gmac_keys()) {
    SCOPED_TRACE(key.key);
    EXPECT_NE(key.field.set, nullptr);
    EXPECT_NE(key.field.get, nullptr);
    EXPECT_NE(key.error, GmacError::kNone);
    EXPECT_FALSE(key.help.empty());
    GmacParams p{kBase, kBasePhy};
    key.field.set(p, key.field.get(p));
    EXPECT_TRUE(same_dma_setup(p.mac, kBase));
    EXPECT_EQ(p.phy, kBasePhy);
  }
}

TEST(GmacParamsTest, FromTheDeviceTreesBootargs) {
  fdt::TreeWriter b;
  b.begin_node("")
      .begin_node("chosen")
      .property_string("bootargs", "console=ttyS0 starling.gmac=linux,txpbl=8")
      .end_node()
      .end_node();
  const auto blob = b.finish();
  auto tree = fdt::DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  const GmacChoice c = choose_gmac_params(&*tree, kBase, kBasePhy);
  ASSERT_EQ(c.error, GmacError::kNone);
  EXPECT_EQ(c.value, "linux,txpbl=8");
  EXPECT_EQ(c.params.tx_pbl, 8u);
  EXPECT_EQ(c.params.rx_pbl, 16u);

  const GmacChoice none = choose_gmac_params(nullptr, kBase, kBasePhy);
  EXPECT_FALSE(none.found);
  expect_sddf(none.params);
  expect_phy_kept(none.params, none.phy);
}

}  // namespace
}  // namespace starling::board
