#ifndef STARLING_PLATFORM_STAR64_GMAC0_H_
#define STARLING_PLATFORM_STAR64_GMAC0_H_

#include <cstdint>

#include "drivers/dwmac/dwmac.h"
#include "drivers/mmio/register_bus.h"
#include "kernel/fdt/device_tree.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"
#include "platform/star64/jh7110_clocks.h"

// The Star64's Ethernet port "eth0": GMAC0 of the JH7110 (docs/hardware/jh7110.md §2)
// with the Motorcomm YT8531 PHY at MDIO address 0, RGMII-ID.
namespace starling::board {

inline constexpr std::uintptr_t kGmac0Base = jh7110::kGmac0Base;
inline constexpr std::uint32_t kGmac0Irq = 7;  // macirq; PLIC source

// DMA bursts: TxPBL = RxPBL = 32 beats without PBLx8, Starling's choice. The
// seed's patch set PBLx8 with TxPBL 2 / RxPBL 8 (16 and 64 beats); the sDDF
// driver that could be read writes no PBL at all (docs/hardware/dwmac.md
// §7.4, corrected in issue 46), so it settles nothing. 32 beats of the 64-bit AXI
// are 256 bytes, well inside the 2 KiB TX and RX FIFOs, and equal bursts do
// not favour RX over TX. The alternative is one edit:
// {.tx_pbl = 2, .rx_pbl = 8, .pbl_x8 = true}. (Linux uses 16 without x8,
// U-Boot PBLx8 with 8/8.) The JH7110's CSR clock wants MDIO CR 5, as U-Boot
// uses. The rest of the DMA set-up (store-and-forward, AXI bursts, checksum
// offload) is the driver's default, the `sddf` preset of gmac_params.h;
// `starling.gmac=` on the kernel command line picks another, and changes
// the PHY settings below too. The MAC and the PHY are set up apart: the
// driver takes each (Dwmac::Config's params and phy).
//
// The PHY, a Motorcomm YT8531 at MDIO address 0, is set up as Linux and
// U-Boot set it up from the upstream Star64 device tree (phy0 in
// jh7110-pine64-star64.dts; docs/hardware/star64-reference-drivers.md §2):
// rx-internal-delay-ps 1500; no tx-internal-delay-ps, which both read as
// their default 1950 ps (the only TX delay E Shattow found reliable with RX
// 1500, on a Star64; 0 was non-functional with every RX delay);
// motorcomm,tx-clk-adj-enabled with tx-clk-10/100/1000-inverted;
// motorcomm,rx-clk-drv-microamp and rx-data-drv-microamp 2910 (ds 3 at the
// board's 1.8 V LDO). Beyond the device tree, the RX clock is kept running
// without a cable, for the MAC's software reset (Phy's keep_rx_clock).
inline constexpr dwmac::PhyParams kGmac0Phy{
    .address = 0,
    .settings = {.rx_delay_ps = 1500,
                 .tx_delay_ps = 1950,
                 .tx_clock_inverted = dwmac::Yt8531Settings::kInvert10 |
                                      dwmac::Yt8531Settings::kInvert100 |
                                      dwmac::Yt8531Settings::kInvert1000,
                 .rx_clock_drive_ua = 2910,
                 .rx_data_drive_ua = 2910,
                 .keep_rx_clock = true}};
static_assert(dwmac::Phy::valid(kGmac0Phy.settings));

inline constexpr dwmac::Dwmac::BoardParams kGmac0Params{
    .tx_pbl = 32, .rx_pbl = 32, .pbl_x8 = false, .mdio_clock_range = 5};

// 1000BASE-T autonegotiation takes a few seconds after a PHY reset: 6 s covers it
// and a slow switch port, and a board without a cable is not held up longer.
inline constexpr std::uint64_t kLinkWaitNs = 6'000'000'000;
// MDIO polls while waiting: each is a few clause-22 reads; no need to spin.
inline constexpr std::uint64_t kLinkPollIntervalNs = 50'000'000;

struct Gmac0Setup {
  jh7110::Gmac0Blocks blocks{};
  std::uintptr_t base = kGmac0Base;
  std::uint32_t irq = kGmac0Irq;
  mmio::RegisterBus* model = nullptr;     // host tests: a DWMAC device model
  const fdt::DeviceTree* tree = nullptr;  // MAC address, starling.gmac=; may be null
  dwmac::Dwmac::BoardParams params = kGmac0Params;
  dwmac::PhyParams phy = kGmac0Phy;
  std::uint64_t link_wait_ns = kLinkWaitNs;
  std::uint64_t link_poll_interval_ns = kLinkPollIntervalNs;
};

// Clocks, RGMII mode and resets (jh7110_clocks.h), the MAC address
// (mac_address.h), the DMA and PHY set-up (`params` and `phy`, changed by a
// `starling.gmac=` token in the tree's bootargs: gmac_params.h), driver init, then a bounded
// link wait. Prints one console line per step that can go wrong or that a
// person at the console wants to see (the address and where it came from;
// the DMA set-up in use and where it came from; the link, or no link after
// N s: check the cable). No link is not an error: the driver keeps polling the
// PHY and the link may come up later. Errors: kTimedOut from the reset
// release, else Dwmac::init's.
Result<void> start_gmac0(dwmac::Dwmac& gmac, const Gmac0Setup& setup, mem::PageAllocator& pages);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_GMAC0_H_
