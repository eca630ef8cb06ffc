#include "platform/star64/gmac0.h"

#include <string_view>
#include <utility>

#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "kernel/text/writer.h"
#include "platform/star64/gmac_params.h"
#include "platform/star64/mac_address.h"

namespace starling::board {
namespace {

using console::print;

void print_mac(const MacChoice& choice) {
  if (choice.bootarg_error != MacError::kNone) {
    console::print_ignoring("star64", {"starling.mac=: ", mac_error_text(choice.bootarg_error)},
                            "fix: setenv bootargs \"... starling.mac=6c:cf:39:00:12:34\"");
  }
  if (choice.device_tree_malformed) {
    console::print_ignoring("star64", {"the device tree's GMAC0 local-mac-address: not 6 bytes"});
  }
  char text[17];
  print("star64: eth0 MAC ");
  print(std::string_view(text, hal::format_mac(choice.mac, text)));
  print(" (");
  print(mac_source_text(choice.source));
  print(")\n");
  if (choice.source == MacSource::kDefault) {
    print(
        "star64: that is one real board's address: set starling.mac= if two boards share a "
        "network\n");
  }
}

void print_gmac_refusal(const GmacChoice& choice) {
  text::Line<160> fix;
  fix.put("fix: setenv bootargs \"... ");
  fix.put(gmac_error_fix(choice.error));
  fix.put("\"; keeping the board's DMA and PHY set-up");
  const bool at_item = !choice.item.empty();
  console::print_ignoring("star64",
                          {"starling.gmac=", choice.refused, at_item ? " (at \"" : "", choice.item,
                           at_item ? "\")" : "", ": ", gmac_error_text(choice.error)},
                          fix.view());
}

void print_dec(std::uint32_t n) {
  console::print_dec(static_cast<std::int64_t>(n));
}

// One line: the DMA set-up in use, and where it came from.
void print_dma_setup(const dwmac::Dwmac& gmac, const GmacChoice& choice) {
  using DmaMode = dwmac::Dwmac::DmaMode;
  const dwmac::Dwmac::BoardParams& p = gmac.params();
  const bool threshold = p.dma_mode == DmaMode::kThreshold;
  if (threshold) {
    print("star64: gmac0 DMA threshold TX ");
    print_dec(p.tx_threshold);
    print(" B RX ");
    print_dec(p.rx_threshold);
    print(" B");
  } else {
    print("star64: gmac0 DMA store-and-forward");
  }
  print(", TxPBL ");
  print_dec(p.tx_pbl);
  print(" RxPBL ");
  print_dec(p.rx_pbl);
  print(p.pbl_x8 ? " (x8)" : " (x1)");
  print(", AXI bursts ");
  print_dec(p.min_burst);
  if (p.max_burst != p.min_burst) {
    print("..");
    print_dec(p.max_burst);
  }
  print(p.fixed_burst ? " fixed, " : " (FB off), ");
  print_dec(p.axi_outstanding);
  print(" outstanding, TX checksum insertion ");
  print(gmac.tx_checksum_insertion() ? "on"
        : !p.checksum_offload        ? "off (csum=off)"
        : threshold                  ? "off (threshold mode)"
                                     : "off (the core has no TX COE)");
  print(", RX checksum checking ");
  print(gmac.rx_checksum_checking() ? "on" : "off");
  if (!choice.value.empty()) {
    print(" (starling.gmac=");
    print(choice.value);
    print(")\n");
  } else if (same_dma_setup(p, apply_gmac_preset(GmacPreset::kSddf, p))) {
    print(" (starling.gmac=sddf, default)\n");
  } else {
    print(" (the board's parameters)\n");
  }
}

// One line: what the PHY was told (the RGMII timing a first power-on
// depends on), so a console log says which setting a board ran with.
void print_phy_setup(const dwmac::Dwmac& gmac) {
  using S = dwmac::Yt8531Settings;
  const S& phy = gmac.phy_params().settings;
  if (!dwmac::Phy::is_yt8531(gmac.phy_id())) {
    print("star64: eth0 PHY is not a YT8531 (ID ");
    console::print_hex(gmac.phy_id());
    print("): its RGMII settings were not programmed\n");
    return;
  }
  print("star64: eth0 PHY YT8531, RX delay ");
  print_dec(phy.rx_delay_ps);
  print(" ps, TX delay ");
  print_dec(phy.tx_delay_ps);
  print(" ps, TX clock inverted at ");
  if (phy.tx_clock_inverted == 0) print("no speed");
  const char* sep = "";
  for (const auto& [bit, name] : {std::pair{S::kInvert10, "10"}, std::pair{S::kInvert100, "100"},
                                  std::pair{S::kInvert1000, "1000"}}) {
    if ((phy.tx_clock_inverted & bit) == 0) continue;
    print(sep);
    print(name);
    sep = "/";
  }
  print(phy.tx_clock_inverted == 0 ? "" : " Mb/s");
  print(", RX drive ");
  print_dec(phy.rx_clock_drive_ua);
  print("/");
  print_dec(phy.rx_data_drive_ua);
  print(" uA");
  print(phy.keep_rx_clock ? ", RX clock kept on\n" : "\n");
}

const char* speed_text(dwmac::LinkSpeed speed) {
  switch (speed) {
    case dwmac::LinkSpeed::k10:
      return "10";
    case dwmac::LinkSpeed::k100:
      return "100";
    case dwmac::LinkSpeed::k1000:
      return "1000";
  }
  return "?";
}

void wait_for_link(dwmac::Dwmac& gmac, const Gmac0Setup& setup) {
  const std::uint64_t start = hal::now_ns();
  for (;;) {
    auto link = gmac.poll_link();
    if (!link.ok()) {
      print("star64: PHY link poll failed (");
      print(error_name(link.error()));
      print("): carrying on, the driver polls again\n");
      return;
    }
    if (*link == hal::LinkState::kUp) {
      const dwmac::PhyLink& phy = gmac.phy_link();
      print("star64: link up at ");
      print(speed_text(phy.speed));
      print(phy.full_duplex ? " Mb/s full duplex\n" : " Mb/s half duplex\n");
      return;
    }
    const std::uint64_t now = hal::now_ns();
    if (now - start >= setup.link_wait_ns) break;
    const std::uint64_t next = now + setup.link_poll_interval_ns;
    while (hal::now_ns() < next) {
    }
  }
  print("star64: no link after ");
  console::print_dec(static_cast<std::int64_t>(setup.link_wait_ns / 1'000'000'000));
  print(" s: check the cable; carrying on (the link is polled every 0.5 s)\n");
}

void print_words(const mmio::Registers& block, std::initializer_list<std::uint32_t> offsets) {
  for (std::uint32_t offset : offsets) {
    print(" ");
    console::print_hex(offset);
    print("=");
    console::print_hex(block.read(offset));
  }
}

// starling.gmac=debug: GMAC0's clock, reset and mode words (the ones
// jh7110_clocks.cc writes, and GMAC_PHY beside them), two lines.
void print_bring_up_words(const jh7110::Gmac0Blocks& blocks, const char* when) {
  print("star64: debug: ");
  print(when);
  print(": AONCRG");
  print_words(blocks.aon_crg, {jh7110::kAonGmac0Ahb, jh7110::kAonGmac0Axi, 0x10,
                               jh7110::kAonGmac0Tx, jh7110::kAonGmac0TxInv, jh7110::kAonGmac0Rx,
                               jh7110::kAonResetAssert, jh7110::kAonResetStatus});
  print("\n");
  print("star64: debug: ");
  print(when);
  print(": SYSCRG");
  print_words(blocks.sys_crg, {jh7110::kSysGmac0GtxClk, jh7110::kSysGmac0Ptp, jh7110::kSysGmacPhy,
                               jh7110::kSysGmac0Gtxc});
  print("; AON syscon");
  print_words(blocks.aon_syscon, {jh7110::kAonSysconGmac0Mode});
  print("\n");
}

}  // namespace

Result<void> start_gmac0(dwmac::Dwmac& gmac, const Gmac0Setup& setup, mem::PageAllocator& pages) {
  // The parameters first: `debug` asks for the clock words before they change.
  const GmacChoice dma = choose_gmac_params(setup.tree, setup.params, setup.phy);
  if (dma.params.debug) print_bring_up_words(setup.blocks, "before bring-up");
  if (auto ok = jh7110::gmac0_bring_up(setup.blocks); !ok.ok()) {
    if (dma.params.debug) print_bring_up_words(setup.blocks, "after a failed bring-up");
    print(
        "star64: GMAC0 reset did not release (AONCRG 0x3C bits 0-1 never showed it released, or "
        "the AXI reset never showed asserted)\n");
    return ok;
  }
  if (dma.params.debug) print_bring_up_words(setup.blocks, "after bring-up");
  const MacChoice mac = choose_mac(setup.tree);
  print_mac(mac);
  if (dma.error != GmacError::kNone) print_gmac_refusal(dma);
  const dwmac::Dwmac::Config config{.base = setup.base,
                                    .irq = setup.irq,
                                    .model = setup.model,
                                    .mac = mac.mac,
                                    .params = dma.params,
                                    .phy = dma.phy,
                                    .link_wait_ns = 0};
  if (auto ok = gmac.init(config, pages); !ok.ok()) {
    print("star64: GMAC0 init failed: ");
    print(error_name(ok.error()));
    print("\n");
    return ok;
  }
  print_dma_setup(gmac, dma);
  print_phy_setup(gmac);
  if (setup.link_wait_ns != 0) {
    print("star64: waiting up to ");
    console::print_dec(static_cast<std::int64_t>(setup.link_wait_ns / 1'000'000'000));
    print(" s for the link\n");
    wait_for_link(gmac, setup);
  }
  return {};
}

}  // namespace starling::board
