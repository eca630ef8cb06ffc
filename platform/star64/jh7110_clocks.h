#ifndef STARLING_PLATFORM_STAR64_JH7110_CLOCKS_H_
#define STARLING_PLATFORM_STAR64_JH7110_CLOCKS_H_

#include <cstdint>

#include "drivers/mmio/register_bus.h"
#include "kernel/lib/result.h"
#include "platform/star64/jh7110_map.h"

// GMAC0's clocks, PHY-interface mode and resets on the StarFive JH7110
// (docs/hardware/jh7110.md §6-§8). U-Boot stops its Ethernet before booting the kernel and
// leaves GMAC0 in reset (which also wipes MAC_ADDRESS0), so the board must
// bring the block back before the DWMAC driver touches a register.
//
// Every register is a 32-bit word in one of three blocks; each block is an
// mmio::Registers so a host test can stand a fake in for all three and see
// every write, in order.
namespace starling::board::jh7110 {

// The blocks' addresses: jh7110_map.h.

// A clock word at CRG base + 4 * clock ID: bit 31 gate, bit 30 invert,
// 29:24 mux select, 23:0 divider.
inline constexpr std::uint32_t kClockEnable = 1u << 31;
inline constexpr std::uint32_t kClockInvert = 1u << 30;
inline constexpr std::uint32_t kClockMuxShift = 24;
inline constexpr std::uint32_t kClockMuxMask = 0x3Fu << kClockMuxShift;

// AONCRG clock words of GMAC0.
inline constexpr std::uint32_t kAonGmac0Ahb = 0x08;    // ID 2, "pclk"
inline constexpr std::uint32_t kAonGmac0Axi = 0x0C;    // ID 3, "stmmaceth"
inline constexpr std::uint32_t kAonGmac0Tx = 0x14;     // ID 5, gated mux
inline constexpr std::uint32_t kAonGmac0TxInv = 0x18;  // ID 6, "tx"
inline constexpr std::uint32_t kAonGmac0Rx = 0x1C;     // ID 7, mux
// GMAC0_TX mux inputs: 0 = gmac0_gtxclk, 1 = gmac0_rmii_rtx.
inline constexpr std::uint32_t kTxParentRmiiRtx = 1;
// GMAC0_RX mux inputs: 0 = gmac0_rgmii_rxin (the PHY's 125 MHz RXC).
inline constexpr std::uint32_t kRxParentRgmiiRxin = 0;

// SYSCRG clock words of GMAC0 (gated dividers; the dividers are left alone).
inline constexpr std::uint32_t kSysGmac0GtxClk = 0x1B0;  // ID 108
inline constexpr std::uint32_t kSysGmac0Ptp = 0x1B4;     // ID 109, "ptp_ref"
inline constexpr std::uint32_t kSysGmacPhy = 0x1B8;      // ID 110, not enabled (jh7110_clocks.cc)
inline constexpr std::uint32_t kSysGmac0Gtxc = 0x1BC;    // ID 111, "gtx"

// AON syscon 0x0C bits 20:18: GMAC0's PHY interface, 1 = RGMII/RGMII-ID.
inline constexpr std::uint32_t kAonSysconGmac0Mode = 0x0C;
inline constexpr std::uint32_t kPhyModeShift = 18;
inline constexpr std::uint32_t kPhyModeMask = 0x7u << kPhyModeShift;
inline constexpr std::uint32_t kPhyModeRgmii = 1u << kPhyModeShift;

// AONCRG resets: write 1 = assert, 0 = release; the status word reads 1 for
// a released reset.
inline constexpr std::uint32_t kAonResetAssert = 0x38;
inline constexpr std::uint32_t kAonResetStatus = 0x3C;
inline constexpr std::uint32_t kResetGmac0Axi = 1u << 0;
inline constexpr std::uint32_t kResetGmac0Ahb = 1u << 1;

// Status polls before giving up on a reset release. An MMIO read on the
// JH7110 takes well over 100 ns, so this is more than 10 ms; the hardware
// needs a few CRG clock cycles.
inline constexpr std::uint32_t kResetPollLimit = 100'000;

struct Gmac0Blocks {
  mmio::Registers aon_crg{kAonCrgBase};
  mmio::Registers sys_crg{kSysCrgBase};
  mmio::Registers aon_syscon{kAonSysconBase};
};

// Enables GMAC0's clocks, selects RGMII, then pulses the AXI reset (asserts
// it and waits for the status to show it asserted, releases it and waits
// for released) and releases the AHB reset, waiting at most `poll_limit`
// status reads each time. kTimedOut if a reset never shows the state asked
// for (the assert word is left as written).
Result<void> gmac0_bring_up(const Gmac0Blocks& blocks = {},
                            std::uint32_t poll_limit = kResetPollLimit);

// The TRNG's (docs/hardware/jh7110-trng.md): STGCRG clocks SEC_AHB (ID 15,
// "hclk") and SEC_MISC_AHB (ID 16, "ahb"), reset SEC_AHB (bit 3), shared
// with the crypto engine and its DMA. U-Boot may leave them off.
inline constexpr std::uint32_t kStgSecAhb = 0x3C;
inline constexpr std::uint32_t kStgSecMiscAhb = 0x40;
inline constexpr std::uint32_t kStgResetAssert = 0x74;
inline constexpr std::uint32_t kStgResetStatus = 0x78;
inline constexpr std::uint32_t kResetSecAhb = 1u << 3;

// Enables both clocks, then releases the reset and waits (at most
// `poll_limit` status reads) for it to show released: kTimedOut otherwise.
Result<void> trng_bring_up(const mmio::Registers& stg_crg = mmio::Registers{kStgCrgBase},
                           std::uint32_t poll_limit = kResetPollLimit);

}  // namespace starling::board::jh7110

#endif  // STARLING_PLATFORM_STAR64_JH7110_CLOCKS_H_
