#include "platform/star64/jh7110_clocks.h"

#include <atomic>

namespace starling::board::jh7110 {
namespace {

// The three blocks are different devices on different buses: RVWMO orders
// accesses to one device's I/O region only as its PMA says, so the clock
// and mode writes are fenced before the reset release that depends on them.
void fence_device_writes() {
#if defined(__riscv)
  asm volatile("fence o,o" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

void enable(const mmio::Registers& crg, std::uint32_t offset) {
  crg.update(offset, 0, kClockEnable);
}

// A CRG's reset: 1 in the assert word asserts, 0 releases; the status
// word reads 1 once released, 0 once asserted.
Result<void> assert_reset(const mmio::Registers& crg, std::uint32_t assert_offset,
                          std::uint32_t status_offset, std::uint32_t bit,
                          std::uint32_t poll_limit) {
  crg.update(assert_offset, 0, bit);
  for (std::uint32_t i = 0; i < poll_limit; ++i) {
    if ((crg.read(status_offset) & bit) == 0) return {};
  }
  return Unexpected(Error::kTimedOut);
}

Result<void> release_reset(const mmio::Registers& crg, std::uint32_t assert_offset,
                           std::uint32_t status_offset, std::uint32_t bit,
                           std::uint32_t poll_limit) {
  crg.update(assert_offset, bit, 0);
  for (std::uint32_t i = 0; i < poll_limit; ++i) {
    if (crg.read(status_offset) & bit) return {};
  }
  return Unexpected(Error::kTimedOut);
}

}  // namespace

Result<void> gmac0_bring_up(const Gmac0Blocks& blocks, std::uint32_t poll_limit) {
  const mmio::Registers& aon = blocks.aon_crg;
  const mmio::Registers& sys = blocks.sys_crg;

  // Bus clocks first: the AHB (register) and AXI (DMA) interfaces.
  enable(aon, kAonGmac0Ahb);
  enable(aon, kAonGmac0Axi);
  // The Star64 DT sets starfive,tx-use-rgmii-clk with GMAC0_TX's parent
  // forced to gmac0_rmii_rtx, which on this board carries the RGMII RX
  // clock the PHY sends. The TX clock therefore follows the link speed (125,
  // 25 or 2.5 MHz, as the PHY's RXC does) without software: Linux skips
  // its clk_set_rate on a link change when the property is present, and so
  // does nothing here.
  aon.update(kAonGmac0Tx, kClockMuxMask, kClockEnable | (kTxParentRmiiRtx << kClockMuxShift));
  // U-Boot models the inverter as a gate and sets it when it enables `tx`
  // (Linux leaves it as found, i.e. as U-Boot left it): the state every
  // working Star64 network boot has run with.
  aon.update(kAonGmac0TxInv, 0, kClockInvert);
  aon.update(kAonGmac0Rx, kClockMuxMask, kRxParentRgmiiRxin << kClockMuxShift);
  // The clocks jh7110.dtsi gives GMAC0 (stmmaceth, pclk, ptp_ref, tx,
  // gtx) and gtx's parent. Not GMAC_PHY (SYSCRG 0x1B8): no device tree
  // node names it for GMAC0, Linux's unused-clock sweep turns it off on
  // the Star64 (whose YT8531 has its own crystal), and neither U-Boot's
  // nor sDDF's driver enables it (docs/hardware/star64-bring-up.md).
  enable(sys, kSysGmac0GtxClk);
  enable(sys, kSysGmac0Ptp);
  enable(sys, kSysGmac0Gtxc);
  fence_device_writes();

  // The interface mode is latched by the MAC out of reset: set it before.
  blocks.aon_syscon.update(kAonSysconGmac0Mode, kPhyModeMask, kPhyModeRgmii);
  fence_device_writes();

  // Linux's order: dwmac-starfive sets the mode, then stmmac_dvr_probe()
  // asserts and deasserts the "stmmaceth" reset (GMAC0's AXI reset in
  // jh7110.dtsi) and deasserts "ahb". A pulse, not a release alone: U-Boot
  // may have left the AXI reset released, and a MAC already out of reset
  // never latches the mode written above.
  if (auto ok = assert_reset(aon, kAonResetAssert, kAonResetStatus, kResetGmac0Axi, poll_limit);
      !ok.ok()) {
    return ok;
  }
  if (auto ok = release_reset(aon, kAonResetAssert, kAonResetStatus, kResetGmac0Axi, poll_limit);
      !ok.ok()) {
    return ok;
  }
  return release_reset(aon, kAonResetAssert, kAonResetStatus, kResetGmac0Ahb, poll_limit);
}

Result<void> trng_bring_up(const mmio::Registers& stg_crg, std::uint32_t poll_limit) {
  // Clocks before the reset release: a release with the clock gated can
  // hang (Linux's reset driver says so).
  enable(stg_crg, kStgSecAhb);
  enable(stg_crg, kStgSecMiscAhb);
  fence_device_writes();
  return release_reset(stg_crg, kStgResetAssert, kStgResetStatus, kResetSecAhb, poll_limit);
}

}  // namespace starling::board::jh7110
