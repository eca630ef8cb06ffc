#include "platform/star64/gmac_params.h"

#include <array>
#include <cstddef>
#include <type_traits>

#include "kernel/fdt/chosen.h"
#include "kernel/lib/bootargs.h"

namespace starling::board {
namespace {

using Params = dwmac::Dwmac::BoardParams;
using DmaMode = dwmac::Dwmac::DmaMode;

// A field of the MAC's or the PHY's settings, as a key's number.
template <auto kMember>
constexpr GmacField kMacField{
    [](GmacParams& p, std::uint32_t n) {
      p.mac.*kMember = static_cast<std::remove_cvref_t<decltype(p.mac.*kMember)>>(n);
    },
    [](const GmacParams& p) { return static_cast<std::uint32_t>(p.mac.*kMember); }};
template <auto kMember>
constexpr GmacField kPhyField{
    [](GmacParams& p, std::uint32_t n) {
      p.phy.settings.*kMember =
          static_cast<std::remove_cvref_t<decltype(p.phy.settings.*kMember)>>(n);
    },
    [](const GmacParams& p) { return static_cast<std::uint32_t>(p.phy.settings.*kMember); }};

// Every key, declared once. The board's values are gmac0.h's; a preset
// sets the DMA fields (apply_gmac_preset).
constexpr std::array<GmacKey, 19> kDeclared{{
    {.key = "mode",
     .kind = GmacKeyKind::kChoice,
     .error = GmacError::kBadMode,
     .names = {"sf", "thr"},
     .field = kMacField<&Params::dma_mode>,
     .help = "store-and-forward, or threshold"},
    {.key = "ttc",
     .error = GmacError::kBadTxThreshold,
     .low = 32,
     .high = 512,
     .only = {32, 64, 96, 128, 192, 256, 384, 512},
     .field = kMacField<&Params::tx_threshold>,
     .threshold = true,
     .help = "TX threshold, bytes (needs threshold mode)"},
    {.key = "rtc",
     .error = GmacError::kBadRxThreshold,
     .low = 32,
     .high = 128,
     .only = {32, 64, 96, 128},
     .field = kMacField<&Params::rx_threshold>,
     .threshold = true,
     .help = "RX threshold, bytes (needs threshold mode)"},
    {.key = "txpbl",
     .error = GmacError::kBadPbl,
     .low = 1,
     .high = 32,
     .only = {1, 2, 4, 8, 16, 32},
     .field = kMacField<&Params::tx_pbl>,
     .help = "TX DMA burst length, beats"},
    {.key = "rxpbl",
     .error = GmacError::kBadPbl,
     .low = 1,
     .high = 32,
     .only = {1, 2, 4, 8, 16, 32},
     .field = kMacField<&Params::rx_pbl>,
     .help = "RX DMA burst length, beats"},
    {.key = "pbl",
     .error = GmacError::kBadPbl,
     .low = 1,
     .high = 32,
     .only = {1, 2, 4, 8, 16, 32},
     .field = {
         [](GmacParams& p, std::uint32_t n) { p.mac.tx_pbl = p.mac.rx_pbl = n; },
         [](const GmacParams& p) { return p.mac.tx_pbl == p.mac.rx_pbl ? p.mac.tx_pbl : 0u; }},
     .counts_as = {"txpbl", "rxpbl"},
     .help = "both DMA burst lengths, beats: txpbl= and rxpbl= in one"},
    {.key = "pblx8",
     .kind = GmacKeyKind::kSwitch,
     .error = GmacError::kBadSwitch,
     .field = kMacField<&Params::pbl_x8>,
     .bare = true,
     .help = "multiply both PBLs by 8 (DMA_CH0_CONTROL.PBLx8)"},
    {.key = "blen",
     .kind = GmacKeyKind::kRange,
     .error = GmacError::kBadBurst,
     .low = 4,
     .high = 256,
     .only = {4, 8, 16, 32, 64, 128, 256},
     .field = {[](GmacParams& p, std::uint32_t n) {
                 p.mac.min_burst = static_cast<std::uint16_t>(n >> 16);
                 p.mac.max_burst = static_cast<std::uint16_t>(n & 0xFFFF);
               },
               [](const GmacParams& p) {
                 return static_cast<std::uint32_t>(p.mac.min_burst) << 16 | p.mac.max_burst;
               }},
     .help = "AXI burst lengths 4..N, or M..N (DMA_SYSBUS_MODE.BLENn)"},
    {.key = "fb",
     .kind = GmacKeyKind::kSwitch,
     .error = GmacError::kBadSwitch,
     .field = kMacField<&Params::fixed_burst>,
     .help = "fixed-length AXI bursts (DMA_SYSBUS_MODE.FB)"},
    {.key = "osr",
     .error = GmacError::kBadOutstanding,
     .low = 1,
     .high = 16,
     .field = kMacField<&Params::axi_outstanding>,
     .help = "AXI requests in flight each way (the limit fields are N - 1)"},
    {.key = "csum",
     .kind = GmacKeyKind::kSwitch,
     .error = GmacError::kBadSwitch,
     .field = kMacField<&Params::checksum_offload>,
     .help = "checksum offload (TX insertion works only in store-and-forward mode; RX checking "
             "works in both)"},
    {.key = "rxdelay",
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadRxDelay,
     .high = 4150,
     .valid = [](std::uint32_t ps) { return dwmac::Phy::rx_delay_code(ps) >= 0; },
     .field = kPhyField<&dwmac::Yt8531Settings::rx_delay_ps>,
     .placeholder = "PS",
     .values = "0 to 2250 in 150 ps steps, or 1900 to 4150 (the PHY's fixed 1.9 ns plus steps)",
     .help = "the PHY's RX clock delay, ps"},
    {.key = "txdelay",
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadTxDelay,
     .high = 2250,
     .valid = [](std::uint32_t ps) { return dwmac::Phy::tx_delay_code(ps) >= 0; },
     .field = kPhyField<&dwmac::Yt8531Settings::tx_delay_ps>,
     .placeholder = "PS",
     .values = "0 to 2250 in 150 ps steps",
     .help = "the PHY's TX clock delay at 1000 Mb/s, ps"},
    {.key = "txinv",
     .kind = GmacKeyKind::kSpeeds,
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadInversion,
     .names = {"10", "100", "1000"},  // Yt8531Settings::kInvert10, kInvert100, kInvert1000
     .field = kPhyField<&dwmac::Yt8531Settings::tx_clock_inverted>,
     .help = "speeds at which the TX clock is inverted"},
    {.key = "rxc_ua",
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadDrive,
     .low = 1,  // 0, the PHY's own, is the board's to say
     .high = 6140,
     .valid = dwmac::Phy::valid_drive_strength,
     .field = kPhyField<&dwmac::Yt8531Settings::rx_clock_drive_ua>,
     .placeholder = "UA",
     .values = "1200 2100 2700 2910 3110 3600 3970 4350 (1.8 V LDO, the Star64's) or 3070 4080 "
               "4370 4680 5020 5450 5740 6140 (3.3 V)",
     .help = "RX clock pad drive strength, µA"},
    {.key = "rxd_ua",
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadDrive,
     .low = 1,
     .high = 6140,
     .valid = dwmac::Phy::valid_drive_strength,
     .field = kPhyField<&dwmac::Yt8531Settings::rx_data_drive_ua>,
     .placeholder = "UA",
     .values = "as rxc_ua=",
     .help = "RX data pad drive strength, µA"},
    {.key = "keeprxc",
     .kind = GmacKeyKind::kSwitch,
     .group = GmacKeyGroup::kPhy,
     .error = GmacError::kBadSwitch,
     .field = kPhyField<&dwmac::Yt8531Settings::keep_rx_clock>,
     .help = "RX clock running with no cable (the MAC's reset needs it)"},
    {.key = "selftest",
     .kind = GmacKeyKind::kSwitch,
     .group = GmacKeyGroup::kDiagnostics,
     .error = GmacError::kBadSwitch,
     .field = kMacField<&Params::self_test>,
     .help = "one frame through the MAC's loopback before the link is used "
             "(drivers/dwmac/self_test.cc)"},
    {.key = "debug",
     .kind = GmacKeyKind::kSwitch,
     .group = GmacKeyGroup::kDiagnostics,
     .error = GmacError::kBadSwitch,
     .field = kMacField<&Params::debug>,
     .bare = true,
     .help = "the clock, reset and mode registers before and after bring-up, the DMA set-up read "
             "back, and the DMA's state at the first TX timeout"},
}};

// The declarations as the parser reads them: the documentation's strings
// dropped at compile time, so an image keeps only what parsing needs
// (kDeclared goes with gmac_keys(), which no image calls).
constexpr std::array<GmacKey, kDeclared.size()> without_documentation(
    std::array<GmacKey, kDeclared.size()> keys) {
  for (GmacKey& key : keys) key.placeholder = key.values = key.help = {};
  return keys;
}
constexpr auto kKeys = without_documentation(kDeclared);
static_assert(kKeys.size() <= 32, "one bit of `seen` per key");

// The declaration's index, or -1 for no such key.
int find_key(std::string_view key) {
  for (std::size_t i = 0; i < kKeys.size(); ++i) {
    if (kKeys[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

// The bits of `seen` key i marks, to refuse a key given twice.
std::uint32_t key_bits(int i) {
  if (kKeys[i].counts_as[0].empty()) return 1u << i;
  std::uint32_t bits = 0;
  for (std::string_view other : kKeys[i].counts_as) {
    if (!other.empty()) bits |= 1u << find_key(other);
  }
  return bits;
}

bool read_number(const GmacKey& key, std::string_view text, std::uint32_t* out) {
  std::uint64_t n = 0;
  if (!parse_bootarg_number(text, key.low, key.high, &n)) return false;
  if (key.only[0] != 0) {
    bool listed = false;
    for (std::uint16_t v : key.only) listed = listed || (v != 0 && v == n);
    if (!listed) return false;
  }
  if (key.valid != nullptr && !key.valid(static_cast<std::uint32_t>(n))) return false;
  *out = static_cast<std::uint32_t>(n);
  return true;
}

// `text` as `key` reads it, into the number its field takes.
bool read_value(const GmacKey& key, std::string_view text, std::uint32_t* out) {
  switch (key.kind) {
    case GmacKeyKind::kSwitch:
      if (text != "on" && text != "off") return false;
      *out = text == "on" ? 1 : 0;
      return true;
    case GmacKeyKind::kChoice:
      for (std::size_t i = 0; i < key.names.size(); ++i) {
        if (!key.names[i].empty() && text == key.names[i]) {
          *out = static_cast<std::uint32_t>(i);
          return true;
        }
      }
      return false;
    case GmacKeyKind::kNumber:
      return read_number(key, text, out);
    case GmacKeyKind::kRange: {
      std::uint32_t low = key.low, high = 0;
      const auto dots = text.find("..");
      if (dots == std::string_view::npos) {
        if (!read_number(key, text, &high)) return false;
      } else if (!read_number(key, text.substr(0, dots), &low) ||
                 !read_number(key, text.substr(dots + 2), &high) || low > high) {
        return false;
      }
      *out = low << 16 | high;
      return true;
    }
    case GmacKeyKind::kSpeeds: {
      if (text == "none") {
        *out = 0;
        return true;
      }
      std::uint32_t bits = 0;
      for (;;) {
        const auto plus = text.find('+');
        const std::string_view name = text.substr(0, plus);
        std::uint32_t bit = 0;
        for (std::size_t i = 0; i < key.names.size(); ++i) {
          if (!key.names[i].empty() && name == key.names[i]) bit = 1u << i;
        }
        if (bit == 0 || (bits & bit) != 0) return false;
        bits |= bit;
        if (plus == std::string_view::npos) break;
        text = text.substr(plus + 1);
      }
      *out = bits;
      return true;
    }
  }
  return false;
}

// One key=value item (a bare key arrives with value "on") into `p`.
GmacError apply_item(std::string_view name, std::string_view value, GmacParams& p,
                     std::uint32_t& seen) {
  const int i = find_key(name);
  if (i < 0) return GmacError::kUnknownKey;
  const std::uint32_t bits = key_bits(i);
  if ((seen & bits) != 0) return GmacError::kRepeatedKey;
  seen |= bits;
  std::uint32_t n = 0;
  if (!read_value(kKeys[i], value, &n)) return kKeys[i].error;
  kKeys[i].field.set(p, n);
  return GmacError::kNone;
}

struct Outcome {
  GmacError error = GmacError::kNone;
  std::string_view item;
};

// The whole value into *out, or an error naming the item; *out is written
// only on success.
Outcome parse_value(std::string_view value, const GmacParams& base, GmacParams* out) {
  if (value.empty()) return {GmacError::kEmpty, value};
  GmacParams p = base;
  std::uint32_t seen = 0;
  std::string_view threshold_item;  // the first item that needs threshold mode
  bool first = true;
  for (;;) {
    const auto comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    if (item.empty()) return {GmacError::kEmpty, item};
    const auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      const int i = find_key(item);
      if (item == "sddf" || item == "linux") {
        if (!first) return {GmacError::kPresetNotFirst, item};
        p.mac =
            apply_gmac_preset(item == "sddf" ? GmacPreset::kSddf : GmacPreset::kLinux, base.mac);
      } else if (i >= 0 && kKeys[i].bare) {
        if (auto e = apply_item(item, "on", p, seen); e != GmacError::kNone) return {e, item};
      } else {
        return {GmacError::kUnknownPreset, item};
      }
    } else {
      const std::string_view key = item.substr(0, equals);
      const std::string_view v = item.substr(equals + 1);
      if (v.empty()) return {GmacError::kEmpty, item};
      if (auto e = apply_item(key, v, p, seen); e != GmacError::kNone) return {e, item};
      if (threshold_item.empty() && kKeys[find_key(key)].threshold) threshold_item = item;
    }
    first = false;
    if (comma == std::string_view::npos) break;
    value = value.substr(comma + 1);
  }
  if (!threshold_item.empty() && p.mac.dma_mode != DmaMode::kThreshold) {
    return {GmacError::kThresholdUnused, threshold_item};
  }
  *out = p;
  return {};
}

}  // namespace

Params apply_gmac_preset(GmacPreset preset, const Params& base) {
  Params p = base;
  p.tx_threshold = p.rx_threshold = 64;  // stmmac's TC_DEFAULT; unused in sddf
  p.pbl_x8 = false;
  p.fixed_burst = true;
  p.axi_outstanding = 4;  // RD/WR_OSR_LMT = 3
  p.checksum_offload = true;
  switch (preset) {
    case GmacPreset::kSddf:
      p.dma_mode = DmaMode::kStoreAndForward;
      p.tx_pbl = p.rx_pbl = 32;
      p.min_burst = 4;
      p.max_burst = 16;
      break;
    case GmacPreset::kLinux:
      // `snps,force_thresh_dma_mode`, `snps,txpbl = <16>`, `snps,rxpbl =
      // <16>`, `snps,no-pbl-x8`, `snps,fixed-burst`, `snps,blen = <256 128 64
      // 32 0 0 0>`. Linux drops TX checksum insertion in threshold mode and
      // keeps RX checking; so does the driver (Dwmac::read_features).
      p.dma_mode = DmaMode::kThreshold;
      p.tx_pbl = p.rx_pbl = 16;
      p.min_burst = 32;
      p.max_burst = 256;
      break;
  }
  return p;
}

bool same_dma_setup(const Params& a, const Params& b) {
  const bool thresholds = a.dma_mode == DmaMode::kStoreAndForward ||
                          (a.tx_threshold == b.tx_threshold && a.rx_threshold == b.rx_threshold);
  return a.dma_mode == b.dma_mode && thresholds && a.tx_pbl == b.tx_pbl && a.rx_pbl == b.rx_pbl &&
         a.pbl_x8 == b.pbl_x8 && a.fixed_burst == b.fixed_burst && a.min_burst == b.min_burst &&
         a.max_burst == b.max_burst && a.axi_outstanding == b.axi_outstanding &&
         a.checksum_offload == b.checksum_offload;
}

namespace {

// Each GmacError's cause and fix, in the enumeration's order.
struct Refusal {
  GmacError error;
  const char* text;
  const char* fix;
};
constexpr Refusal kRefusals[] = {
    {GmacError::kNone, "ok", ""},
    {GmacError::kEmpty, "an empty value or item (nothing after '=' or between two commas)",
     "starling.gmac=linux,txpbl=8"},
    {GmacError::kUnknownPreset,
     "not a preset: the presets are sddf and linux (and the bare words pblx8 and debug)",
     "starling.gmac=linux"},
    {GmacError::kPresetNotFirst, "a preset (sddf, linux) must come first",
     "starling.gmac=linux,txpbl=8"},
    {GmacError::kUnknownKey,
     "unknown key: the keys are mode, ttc, rtc, txpbl, rxpbl, pbl, pblx8, blen, fb, osr, "
     "csum, rxdelay, txdelay, txinv, rxc_ua, rxd_ua, keeprxc, selftest, debug",
     "starling.gmac=linux,txpbl=8"},
    {GmacError::kRepeatedKey, "a key given twice (pbl= sets both txpbl= and rxpbl=)",
     "starling.gmac=linux,txpbl=8,rxpbl=16"},
    {GmacError::kBadMode, "mode is sf (store-and-forward) or thr (threshold)",
     "starling.gmac=sddf,mode=thr"},
    {GmacError::kBadTxThreshold,
     "the TX threshold ttc= is 32, 64, 96, 128, 192, 256, 384 or 512 bytes",
     "starling.gmac=linux,ttc=128"},
    {GmacError::kBadRxThreshold, "the RX threshold rtc= is 32, 64, 96 or 128 bytes",
     "starling.gmac=linux,rtc=128"},
    {GmacError::kBadPbl, "a PBL is 1, 2, 4, 8, 16 or 32 beats (pblx8 multiplies both by 8)",
     "starling.gmac=linux,txpbl=8"},
    {GmacError::kBadSwitch, "pblx8=, fb=, csum=, keeprxc=, selftest= and debug= take on or off",
     "starling.gmac=sddf,csum=off"},
    {GmacError::kBadBurst,
     "blen= is N or M..N with M <= N, each 4, 8, 16, 32, 64, 128 or 256 beats",
     "starling.gmac=sddf,blen=32..256"},
    {GmacError::kBadOutstanding, "osr= is 1 to 16 AXI requests in flight",
     "starling.gmac=linux,osr=16"},
    {GmacError::kThresholdUnused, "ttc= and rtc= set thresholds, but the mode is store-and-forward",
     "starling.gmac=sddf,mode=thr,ttc=128"},
    {GmacError::kDuplicate, "more than one starling.gmac= token: give one", "starling.gmac=linux"},
    {GmacError::kBadRxDelay,
     "rxdelay= is 0 to 2250 ps in steps of 150, or 1900 to 4150 in steps of 150",
     "starling.gmac=rxdelay=1500"},
    {GmacError::kBadTxDelay, "txdelay= is 0 to 2250 ps in steps of 150",
     "starling.gmac=txdelay=1950"},
    {GmacError::kBadInversion, "txinv= is none or speeds joined by +, each once: 10, 100, 1000",
     "starling.gmac=txinv=10+100+1000"},
    {GmacError::kBadDrive,
     "rxc_ua= and rxd_ua= are a YT8531 drive strength in uA: 1200 2100 2700 2910 3110 "
     "3600 3970 4350 (1.8 V) or 3070 4080 4370 4680 5020 5450 5740 6140 (3.3 V)",
     "starling.gmac=rxc_ua=2910,rxd_ua=2910"},
};
constexpr bool in_order() {
  for (std::size_t i = 0; i < std::size(kRefusals); ++i) {
    if (kRefusals[i].error != static_cast<GmacError>(i)) return false;
  }
  return true;
}
static_assert(in_order() &&
              std::size(kRefusals) == static_cast<std::size_t>(GmacError::kBadDrive) + 1);

const Refusal* refusal(GmacError error) {
  const auto i = static_cast<std::size_t>(error);
  return i < std::size(kRefusals) ? &kRefusals[i] : nullptr;
}

}  // namespace

const char* gmac_error_text(GmacError error) {
  const Refusal* r = refusal(error);
  return r != nullptr ? r->text : "?";
}

const char* gmac_error_fix(GmacError error) {
  const Refusal* r = refusal(error);
  return r != nullptr ? r->fix : "";
}

std::span<const GmacKey> gmac_keys() {
  return kDeclared;
}

GmacChoice parse_gmac_bootargs(std::string_view bootargs, const Params& base,
                               const dwmac::PhyParams& base_phy) {
  GmacChoice choice;
  choice.params = base;
  choice.phy = base_phy;
  const BootargValue arg = bootarg_value(bootargs, kGmacBootarg.substr(0, kGmacBootarg.size() - 1));
  choice.found = arg.found;
  if (!arg.found) return choice;
  if (arg.repeated) {
    // Neither is used: which one was meant is anybody's guess.
    choice.error = GmacError::kDuplicate;
    choice.refused = arg.value;
    return choice;
  }
  GmacParams chosen;
  const Outcome outcome = parse_value(arg.value, {base, base_phy}, &chosen);
  if (outcome.error != GmacError::kNone) {
    choice.error = outcome.error;
    choice.refused = arg.value;
    choice.item = outcome.item;
  } else {
    choice.params = chosen.mac;
    choice.phy = chosen.phy;
    choice.value = arg.value;
  }
  return choice;
}

GmacChoice choose_gmac_params(const fdt::DeviceTree* tree, const Params& base,
                              const dwmac::PhyParams& base_phy) {
  GmacChoice none;
  none.params = base;
  none.phy = base_phy;
  if (tree == nullptr) return none;
  auto chosen = fdt::read_chosen(*tree);
  if (!chosen.ok() || !chosen->bootargs) return none;
  return parse_gmac_bootargs(*chosen->bootargs, base, base_phy);
}

}  // namespace starling::board
