#ifndef STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_
#define STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_

#include <array>
#include <cstdint>
#include <span>
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
// and comma-separated items after a preset (or alone, on top of sddf): the
// DMA overrides, the PHY's timing (a YT8531; gmac0.h has the board's values
// and their sources) in the device tree's units, and the first power-on's
// diagnostics (docs/star64.md, "First power-on"). Each key is declared once,
// in gmac_params.cc (its syntax, values, field and one line of help), and
// read by one parser; docs/star64.md's tables of them are generated from
// the declarations (gmac_keys_doc.cc) and checked by
// //platform/star64:gmac_keys_doc_test.
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
// offload) set to the preset's; the MDIO, prefetch and diagnostic fields
// kept (the PHY's are apart: no preset touches them).
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
  kUnknownKey,       // key=value with a key not declared (gmac_params.cc)
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

// What the keys set: the MAC's parameters and, apart, the PHY's.
struct GmacParams {
  dwmac::Dwmac::BoardParams mac;
  dwmac::PhyParams phy;
};

// How a key's value is read; each kind yields one number for the field.
enum class GmacKeyKind : std::uint8_t {
  kSwitch,  // on or off: 1 or 0
  kChoice,  // one of `names`: its index
  kNumber,  // decimal, low to high, one of `only` if listed, and `valid` if given
  kRange,   // N or M..N, each a kNumber's, M <= N; N alone is low..N: (M << 16) | N
  kSpeeds,  // none, or `names` joined by '+', each once: bit i for names[i]
};

// Which of docs/star64.md's tables lists a key.
enum class GmacKeyGroup : std::uint8_t { kDma, kPhy, kDiagnostics };

// The field a key sets, as the number its kind yields (get: for the
// documentation's default column).
struct GmacField {
  void (*set)(GmacParams&, std::uint32_t) = nullptr;
  std::uint32_t (*get)(const GmacParams&) = nullptr;
};

// One `starling.gmac=` key, declared once: how its value is read, the
// error a value it does not take gets, the field it sets, and the
// documentation's row. The parser reads a copy without the documentation's
// strings, so an image keeps them only if it calls gmac_keys().
struct GmacKey {
  std::string_view key{};
  GmacKeyKind kind = GmacKeyKind::kNumber;
  GmacKeyGroup group = GmacKeyGroup::kDma;
  GmacError error = GmacError::kNone;
  std::uint32_t low = 0, high = 0;          // kNumber, kRange
  std::array<std::uint16_t, 8> only{};      // kNumber, kRange: the values taken (0 ends)
  bool (*valid)(std::uint32_t) = nullptr;   // kNumber: an encoding check (the PHY's)
  std::array<std::string_view, 3> names{};  // kChoice, kSpeeds
  GmacField field{};
  bool bare = false;       // the key alone is key=on
  bool threshold = false;  // needs threshold mode: else kThresholdUnused
  // Given twice when any of these was given (pbl= is txpbl= and rxpbl=);
  // none: when this key was.
  std::array<std::string_view, 2> counts_as{};
  std::string_view placeholder = "N";  // the documentation's key=N
  std::string_view values{};           // the documentation's values, where the rest cannot say
  std::string_view help{};             // one line: what it sets
};

// The declarations (gmac_params.cc), for the documentation and the tests.
std::span<const GmacKey> gmac_keys();

struct GmacChoice {
  dwmac::Dwmac::BoardParams params;  // what to program: the MAC
  dwmac::PhyParams phy;              // ... and the PHY
  bool found = false;                // a starling.gmac= token was present
  std::string_view value;            // its value, when accepted ("linux,txpbl=8")
  GmacError error = GmacError::kNone;
  std::string_view refused;  // the refused token's value
  std::string_view item;     // the item in it that was wrong (empty for kDuplicate)
};

// Looks for `starling.gmac=` in `bootargs` and applies it to the board's
// `base` and `base_phy`. Views in the result point into `bootargs`.
GmacChoice parse_gmac_bootargs(std::string_view bootargs, const dwmac::Dwmac::BoardParams& base,
                               const dwmac::PhyParams& base_phy);
// The same from the device tree's /chosen/bootargs; `tree` may be null.
GmacChoice choose_gmac_params(const fdt::DeviceTree* tree, const dwmac::Dwmac::BoardParams& base,
                              const dwmac::PhyParams& base_phy);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_GMAC_PARAMS_H_
