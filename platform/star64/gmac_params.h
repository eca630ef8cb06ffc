#ifndef STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_
#define STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_

#include <cstdint>
#include <string_view>

#include "drivers/dwmac/dwmac.h"
#include "kernel/fdt/device_tree.h"

// GMAC0's DMA set-up, chosen on the kernel command line (/chosen/bootargs,
// U-Boot's `setenv bootargs`): `starling.gmac=` among space-separated
// others. Two drivers are known to move traffic through this MAC and they
// disagree (docs/hardware/dwmac.md §7.4, §10), so both are presets:
//
//   starling.gmac=sddf    the default, measured on a Star64 (954.5 Mb/s UDP
//                         echo): store-and-forward, TX checksum insertion and
//                         RX checking (sDDF's), TxPBL = RxPBL = 32 without
//                         x8 (Starling's: sDDF writes no PBL); AXI:
//                         fixed bursts of 4 to 16 beats, 4 requests in flight
//                         each way (sDDF's AXI set-up is not known here: this
//                         part is Starling's own default)
//   starling.gmac=linux   Linux mainline's JH7110 device tree: threshold mode
//                         (TTC = RTC = 64 bytes, stmmac's default threshold),
//                         so no TX checksum insertion (RX checking stays on, as
//                         in Linux), TxPBL = RxPBL = 16 without x8, fixed
//                         bursts of 32 to 256 beats, 4 requests in flight
//                         each way (field value 3). Linux itself writes its
//                         DT number into the field unchanged: 4 (earlier
//                         trees) is 5 requests, 15 (current trees) is 16;
//                         add osr=5 or osr=16 for those
//
// and comma-separated overrides after a preset (or alone, on top of sddf):
//
//   mode=sf|thr           store-and-forward or threshold
//   ttc=N                 TX threshold in bytes: 32 64 96 128 192 256 384 512
//   rtc=N                 RX threshold in bytes: 32 64 96 128
//                         (ttc= and rtc= need threshold mode)
//   txpbl=N rxpbl=N pbl=N TX, RX or both burst lengths, beats: 1 2 4 8 16 32
//   pblx8 | pblx8=on|off  multiply both PBLs by 8 (DMA_CH0_CONTROL.PBLx8)
//   blen=N | blen=M..N    AXI burst lengths 4..N, or M..N (powers of two, 4-256)
//   fb=on|off             fixed bursts (DMA_SYSBUS_MODE.FB)
//   osr=N                 AXI requests in flight each way, 1-16 (field N - 1)
//   csum=on|off           checksum offload (TX insertion in store-and-forward
//                         mode only; RX checking in both)
//
// and the PHY (a YT8531; gmac0.h has the board's values and their sources),
// in the device tree's units, for a board whose wiring needs other timing:
//
//   rxdelay=PS            RX clock delay: 0-2250 ps in 150 ps steps, or
//                         1900-4150 (the PHY's fixed 1.9 ns plus steps)
//   txdelay=PS            TX clock delay at 1000 Mb/s: 0-2250 in 150 ps steps
//   txinv=none|S+S...     speeds with the TX clock inverted: 10, 100, 1000
//   rxc_ua=UA rxd_ua=UA   RX clock / data drive strength, µA (the YT8531's
//                         table for its LDO voltage)
//   keeprxc=on|off        RX clock running without a cable (for the MAC's reset)
//
// and the first power-on's diagnostics (docs/star64.md, "First power-on"):
//
//   selftest=on|off       one frame through the MAC's loopback before the
//                         link is used (default on; drivers/dwmac/self_test.cc)
//   debug | debug=on|off  the clock, reset and mode registers before and
//                         after bring-up, the DMA set-up read back, and the
//                         DMA's state at the first TX timeout
//
// e.g. `starling.gmac=linux,txpbl=8,rxpbl=8,pblx8,osr=16` or
// `starling.gmac=txdelay=1800,rxdelay=1350`. Every key at most
// once. A token with anything wrong (an unknown preset or key, a value out
// of range, ttc= without threshold mode, two starling.gmac= tokens) is
// ignored whole, the board's parameters are kept, and the error says what
// and how to fix it: never half a configuration.
namespace starling::board {

inline constexpr std::string_view kGmacBootarg = "starling.gmac=";

enum class GmacPreset : std::uint8_t { kSddf, kLinux };
// `base` with its DMA fields (mode, thresholds, PBLs, x8, AXI, checksum
// offload) set to the preset's; the PHY, MDIO and prefetch fields kept.
dwmac::Dwmac::BoardParams apply_gmac_preset(GmacPreset preset,
                                            const dwmac::Dwmac::BoardParams& base);
// True if the DMA fields of a and b agree.
bool same_dma_setup(const dwmac::Dwmac::BoardParams& a, const dwmac::Dwmac::BoardParams& b);

// Why a `starling.gmac=` token was refused.
enum class GmacError : std::uint8_t {
  kNone,
  kEmpty,            // nothing after '=', or an empty item between commas
  kUnknownPreset,    // a bare word that is neither a preset nor pblx8 nor debug
  kPresetNotFirst,   // a preset after another item
  kUnknownKey,       // key=value with a key not in the list above
  kRepeatedKey,      // the same key twice
  kBadMode,          // mode= not sf or thr
  kBadTxThreshold,   // ttc= not one of the eight TTC values
  kBadRxThreshold,   // rtc= not one of the four RTC values
  kBadPbl,           // txpbl= / rxpbl= / pbl= not 1, 2, 4, 8, 16 or 32
  kBadSwitch,        // pblx8= / fb= / csum= / keeprxc= / selftest= / debug= not on or off
  kBadBurst,         // blen= not N or M..N of 4..256 powers of two, M <= N
  kBadOutstanding,   // osr= not 1 to 16
  kThresholdUnused,  // ttc= or rtc= while the mode is store-and-forward
  kDuplicate,        // more than one starling.gmac= token
  kBadRxDelay,       // rxdelay= with no encoding
  kBadTxDelay,       // txdelay= with no encoding
  kBadInversion,     // txinv= not none or 10/100/1000 joined by +
  kBadDrive,         // rxc_ua= / rxd_ua= not in the YT8531's tables
};
// What is wrong, and a fix, each one clause without a trailing newline.
const char* gmac_error_text(GmacError error);
const char* gmac_error_fix(GmacError error);

struct GmacChoice {
  dwmac::Dwmac::BoardParams params;  // what to program
  bool found = false;                // a starling.gmac= token was present
  std::string_view value;            // its value, when accepted ("linux,txpbl=8")
  GmacError error = GmacError::kNone;
  std::string_view refused;  // the refused token's value
  std::string_view item;     // the item in it that was wrong (empty for kDuplicate)
};

// Looks for `starling.gmac=` in `bootargs` and applies it to `base`.
// Views in the result point into `bootargs`.
GmacChoice parse_gmac_bootargs(std::string_view bootargs, const dwmac::Dwmac::BoardParams& base);
// The same from the device tree's /chosen/bootargs; `tree` may be null.
GmacChoice choose_gmac_params(const fdt::DeviceTree* tree, const dwmac::Dwmac::BoardParams& base);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_
