#include "platform/star64/gmac0.h"

#include <string_view>

#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "platform/star64/mac_address.h"

namespace starling::board {
namespace {

using console::print;

void print_mac(const MacChoice& choice) {
  if (choice.bootarg_error != MacError::kNone) {
    print("star64: ignoring starling.mac=: ");
    print(mac_error_text(choice.bootarg_error));
    print("; fix: setenv bootargs \"... starling.mac=6c:cf:39:00:12:34\"\n");
  }
  if (choice.device_tree_malformed) {
    print("star64: ignoring the device tree's GMAC0 local-mac-address: not 6 bytes\n");
  }
  char text[17];
  print("star64: eth0 MAC ");
  print(std::string_view(text, format_mac(choice.mac, text)));
  print(" (");
  print(mac_source_text(choice.source));
  print(")\n");
  if (choice.source == MacSource::kDefault) {
    print(
        "star64: that is one real board's address: set starling.mac= if two boards share a "
        "network\n");
  }
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

}  // namespace

Result<void> start_gmac0(dwmac::Dwmac& gmac, const Gmac0Setup& setup, mem::PageAllocator& pages) {
  if (auto ok = jh7110::gmac0_bring_up(setup.blocks); !ok.ok()) {
    print("star64: GMAC0 reset did not release (AONCRG 0x3C bits 0-1 stayed 0)\n");
    return ok;
  }
  const MacChoice mac = choose_mac(setup.tree);
  print_mac(mac);
  const dwmac::Dwmac::Config config{.base = setup.base,
                                    .irq = setup.irq,
                                    .model = setup.model,
                                    .mac = mac.mac,
                                    .params = setup.params,
                                    .link_wait_ns = 0};
  if (auto ok = gmac.init(config, pages); !ok.ok()) {
    print("star64: GMAC0 init failed: ");
    print(error_name(ok.error()));
    print("\n");
    return ok;
  }
  if (setup.link_wait_ns != 0) {
    print("star64: waiting up to ");
    console::print_dec(static_cast<std::int64_t>(setup.link_wait_ns / 1'000'000'000));
    print(" s for the link\n");
    wait_for_link(gmac, setup);
  }
  return {};
}

}  // namespace starling::board
