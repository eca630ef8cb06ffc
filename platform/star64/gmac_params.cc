#include "platform/star64/gmac_params.h"

#include "kernel/fdt/chosen.h"
#include "kernel/lib/bootargs.h"

namespace starling::board {
namespace {

using Params = dwmac::Dwmac::BoardParams;
using DmaMode = dwmac::Dwmac::DmaMode;

// Decimal, 1 to 5 digits, no sign: enough for every value here, and no
// overflow.
bool parse_number(std::string_view text, std::uint32_t* out) {
  if (text.empty() || text.size() > 5) return false;
  std::uint32_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<std::uint32_t>(c - '0');
  }
  *out = n;
  return true;
}

bool parse_switch(std::string_view text, bool* out) {
  if (text == "on") {
    *out = true;
    return true;
  }
  if (text == "off") {
    *out = false;
    return true;
  }
  return false;
}

bool parse_pbl(std::string_view text, std::uint32_t* out) {
  std::uint32_t n = 0;
  if (!parse_number(text, &n)) return false;
  if (n != 1 && n != 2 && n != 4 && n != 8 && n != 16 && n != 32) return false;
  *out = n;
  return true;
}

bool parse_burst(std::string_view text, std::uint16_t* out) {
  std::uint32_t n = 0;
  if (!parse_number(text, &n)) return false;
  if (n < 4 || n > 256 || (n & (n - 1)) != 0) return false;
  *out = static_cast<std::uint16_t>(n);
  return true;
}

// "N" (4..N) or "M..N".
bool parse_blen(std::string_view text, std::uint16_t* lo, std::uint16_t* hi) {
  std::uint16_t min = 4, max = 0;
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) {
    if (!parse_burst(text, &max)) return false;
  } else if (!parse_burst(text.substr(0, dots), &min) ||
             !parse_burst(text.substr(dots + 2), &max) || min > max) {
    return false;
  }
  *lo = min;
  *hi = max;
  return true;
}

// One bit per key, to refuse a key given twice. pbl= sets txpbl and rxpbl.
enum KeyBit : unsigned {
  kKeyMode = 1u << 0,
  kKeyTtc = 1u << 1,
  kKeyRtc = 1u << 2,
  kKeyTxPbl = 1u << 3,
  kKeyRxPbl = 1u << 4,
  kKeyPblx8 = 1u << 5,
  kKeyBlen = 1u << 6,
  kKeyFb = 1u << 7,
  kKeyOsr = 1u << 8,
  kKeyCsum = 1u << 9,
  kKeyRxDelay = 1u << 10,
  kKeyTxDelay = 1u << 11,
  kKeyTxInvert = 1u << 12,
  kKeyRxcDrive = 1u << 13,
  kKeyRxdDrive = 1u << 14,
  kKeyKeepRxc = 1u << 15,
  kKeySelfTest = 1u << 16,
  kKeyDebug = 1u << 17,
};

// "none", or speeds joined by '+': "1000", "10+100+1000".
bool parse_inversion(std::string_view text, std::uint8_t* out) {
  using S = dwmac::Yt8531Settings;
  if (text == "none") {
    *out = 0;
    return true;
  }
  std::uint8_t bits = 0;
  for (;;) {
    const auto plus = text.find('+');
    const std::string_view speed = text.substr(0, plus);
    const std::uint8_t bit = speed == "10"     ? S::kInvert10
                             : speed == "100"  ? S::kInvert100
                             : speed == "1000" ? S::kInvert1000
                                               : 0;
    if (bit == 0 || (bits & bit) != 0) return false;
    bits |= bit;
    if (plus == std::string_view::npos) break;
    text = text.substr(plus + 1);
  }
  *out = bits;
  return true;
}

struct Outcome {
  GmacError error = GmacError::kNone;
  std::string_view item;
};

// One key=value item (a bare "pblx8" arrives as key "pblx8", value "on")
// into `p`.
GmacError apply_item(std::string_view key, std::string_view value, Params& p, unsigned& seen) {
  unsigned bits = 0;
  if (key == "mode") {
    bits = kKeyMode;
  } else if (key == "ttc") {
    bits = kKeyTtc;
  } else if (key == "rtc") {
    bits = kKeyRtc;
  } else if (key == "txpbl") {
    bits = kKeyTxPbl;
  } else if (key == "rxpbl") {
    bits = kKeyRxPbl;
  } else if (key == "pbl") {
    bits = kKeyTxPbl | kKeyRxPbl;
  } else if (key == "pblx8") {
    bits = kKeyPblx8;
  } else if (key == "blen") {
    bits = kKeyBlen;
  } else if (key == "fb") {
    bits = kKeyFb;
  } else if (key == "osr") {
    bits = kKeyOsr;
  } else if (key == "csum") {
    bits = kKeyCsum;
  } else if (key == "rxdelay") {
    bits = kKeyRxDelay;
  } else if (key == "txdelay") {
    bits = kKeyTxDelay;
  } else if (key == "txinv") {
    bits = kKeyTxInvert;
  } else if (key == "rxc_ua") {
    bits = kKeyRxcDrive;
  } else if (key == "rxd_ua") {
    bits = kKeyRxdDrive;
  } else if (key == "keeprxc") {
    bits = kKeyKeepRxc;
  } else if (key == "selftest") {
    bits = kKeySelfTest;
  } else if (key == "debug") {
    bits = kKeyDebug;
  } else {
    return GmacError::kUnknownKey;
  }
  if ((seen & bits) != 0) return GmacError::kRepeatedKey;
  seen |= bits;

  std::uint32_t n = 0;
  switch (bits) {
    case kKeyMode:
      if (value == "sf") {
        p.dma_mode = DmaMode::kStoreAndForward;
      } else if (value == "thr") {
        p.dma_mode = DmaMode::kThreshold;
      } else {
        return GmacError::kBadMode;
      }
      return GmacError::kNone;
    case kKeyTtc:
      if (!parse_number(value, &n) || (n != 32 && n != 64 && n != 96 && n != 128 && n != 192 &&
                                       n != 256 && n != 384 && n != 512)) {
        return GmacError::kBadTxThreshold;
      }
      p.tx_threshold = static_cast<std::uint16_t>(n);
      return GmacError::kNone;
    case kKeyRtc:
      if (!parse_number(value, &n) || (n != 32 && n != 64 && n != 96 && n != 128)) {
        return GmacError::kBadRxThreshold;
      }
      p.rx_threshold = static_cast<std::uint16_t>(n);
      return GmacError::kNone;
    case kKeyTxPbl:
      return parse_pbl(value, &p.tx_pbl) ? GmacError::kNone : GmacError::kBadPbl;
    case kKeyRxPbl:
      return parse_pbl(value, &p.rx_pbl) ? GmacError::kNone : GmacError::kBadPbl;
    case kKeyTxPbl | kKeyRxPbl:
      if (!parse_pbl(value, &n)) return GmacError::kBadPbl;
      p.tx_pbl = p.rx_pbl = n;
      return GmacError::kNone;
    case kKeyPblx8:
      return parse_switch(value, &p.pbl_x8) ? GmacError::kNone : GmacError::kBadSwitch;
    case kKeyBlen:
      return parse_blen(value, &p.min_burst, &p.max_burst) ? GmacError::kNone
                                                           : GmacError::kBadBurst;
    case kKeyFb:
      return parse_switch(value, &p.fixed_burst) ? GmacError::kNone : GmacError::kBadSwitch;
    case kKeyOsr:
      if (!parse_number(value, &n) || n < 1 || n > 16) return GmacError::kBadOutstanding;
      p.axi_outstanding = static_cast<std::uint8_t>(n);
      return GmacError::kNone;
    case kKeyCsum:
      return parse_switch(value, &p.checksum_offload) ? GmacError::kNone : GmacError::kBadSwitch;
    case kKeyRxDelay:
      if (!parse_number(value, &n) || dwmac::Phy::rx_delay_code(n) < 0) {
        return GmacError::kBadRxDelay;
      }
      p.phy.rx_delay_ps = static_cast<std::uint16_t>(n);
      return GmacError::kNone;
    case kKeyTxDelay:
      if (!parse_number(value, &n) || dwmac::Phy::tx_delay_code(n) < 0) {
        return GmacError::kBadTxDelay;
      }
      p.phy.tx_delay_ps = static_cast<std::uint16_t>(n);
      return GmacError::kNone;
    case kKeyTxInvert:
      return parse_inversion(value, &p.phy.tx_clock_inverted) ? GmacError::kNone
                                                              : GmacError::kBadInversion;
    case kKeyRxcDrive:
    case kKeyRxdDrive:
      if (!parse_number(value, &n) || n == 0 || !dwmac::Phy::valid_drive_strength(n)) {
        return GmacError::kBadDrive;
      }
      (bits == kKeyRxcDrive ? p.phy.rx_clock_drive_ua : p.phy.rx_data_drive_ua) =
          static_cast<std::uint16_t>(n);
      return GmacError::kNone;
    case kKeyKeepRxc:
      return parse_switch(value, &p.phy.keep_rx_clock) ? GmacError::kNone : GmacError::kBadSwitch;
    case kKeySelfTest:
      return parse_switch(value, &p.self_test) ? GmacError::kNone : GmacError::kBadSwitch;
    case kKeyDebug:
      return parse_switch(value, &p.debug) ? GmacError::kNone : GmacError::kBadSwitch;
    default:
      return GmacError::kUnknownKey;
  }
}

// The whole value into *out, or an error naming the item; *out is written
// only on success.
Outcome parse_value(std::string_view value, const Params& base, Params* out) {
  if (value.empty()) return {GmacError::kEmpty, value};
  Params p = base;
  unsigned seen = 0;
  std::string_view threshold_item;  // the first ttc= or rtc=
  bool first = true;
  for (;;) {
    const auto comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    if (item.empty()) return {GmacError::kEmpty, item};
    const auto equals = item.find('=');
    if (equals == std::string_view::npos) {
      if (item == "sddf" || item == "linux") {
        if (!first) return {GmacError::kPresetNotFirst, item};
        p = apply_gmac_preset(item == "sddf" ? GmacPreset::kSddf : GmacPreset::kLinux, base);
      } else if (item == "pblx8" || item == "debug") {
        if (auto e = apply_item(item, "on", p, seen); e != GmacError::kNone) return {e, item};
      } else {
        return {GmacError::kUnknownPreset, item};
      }
    } else {
      const std::string_view key = item.substr(0, equals);
      const std::string_view v = item.substr(equals + 1);
      if (v.empty()) return {GmacError::kEmpty, item};
      if (auto e = apply_item(key, v, p, seen); e != GmacError::kNone) return {e, item};
      if ((key == "ttc" || key == "rtc") && threshold_item.empty()) threshold_item = item;
    }
    first = false;
    if (comma == std::string_view::npos) break;
    value = value.substr(comma + 1);
  }
  if (!threshold_item.empty() && p.dma_mode != DmaMode::kThreshold) {
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

const char* gmac_error_text(GmacError error) {
  switch (error) {
    case GmacError::kNone:
      return "ok";
    case GmacError::kEmpty:
      return "an empty value or item (nothing after '=' or between two commas)";
    case GmacError::kUnknownPreset:
      return "not a preset: the presets are sddf and linux (and the bare words pblx8 and debug)";
    case GmacError::kPresetNotFirst:
      return "a preset (sddf, linux) must come first";
    case GmacError::kUnknownKey:
      return "unknown key: the keys are mode, ttc, rtc, txpbl, rxpbl, pbl, pblx8, blen, fb, osr, "
             "csum, rxdelay, txdelay, txinv, rxc_ua, rxd_ua, keeprxc, selftest, debug";
    case GmacError::kRepeatedKey:
      return "a key given twice (pbl= sets both txpbl= and rxpbl=)";
    case GmacError::kBadMode:
      return "mode is sf (store-and-forward) or thr (threshold)";
    case GmacError::kBadTxThreshold:
      return "the TX threshold ttc= is 32, 64, 96, 128, 192, 256, 384 or 512 bytes";
    case GmacError::kBadRxThreshold:
      return "the RX threshold rtc= is 32, 64, 96 or 128 bytes";
    case GmacError::kBadPbl:
      return "a PBL is 1, 2, 4, 8, 16 or 32 beats (pblx8 multiplies both by 8)";
    case GmacError::kBadSwitch:
      return "pblx8=, fb=, csum=, keeprxc=, selftest= and debug= take on or off";
    case GmacError::kBadBurst:
      return "blen= is N or M..N with M <= N, each 4, 8, 16, 32, 64, 128 or 256 beats";
    case GmacError::kBadOutstanding:
      return "osr= is 1 to 16 AXI requests in flight";
    case GmacError::kThresholdUnused:
      return "ttc= and rtc= set thresholds, but the mode is store-and-forward";
    case GmacError::kDuplicate:
      return "more than one starling.gmac= token: give one";
    case GmacError::kBadRxDelay:
      return "rxdelay= is 0 to 2250 ps in steps of 150, or 1900 to 4150 in steps of 150";
    case GmacError::kBadTxDelay:
      return "txdelay= is 0 to 2250 ps in steps of 150";
    case GmacError::kBadInversion:
      return "txinv= is none or speeds joined by +, each once: 10, 100, 1000";
    case GmacError::kBadDrive:
      return "rxc_ua= and rxd_ua= are a YT8531 drive strength in uA: 1200 2100 2700 2910 3110 "
             "3600 3970 4350 (1.8 V) or 3070 4080 4370 4680 5020 5450 5740 6140 (3.3 V)";
  }
  return "?";
}

const char* gmac_error_fix(GmacError error) {
  switch (error) {
    case GmacError::kNone:
      return "";
    case GmacError::kEmpty:
    case GmacError::kUnknownKey:
    case GmacError::kPresetNotFirst:
      return "starling.gmac=linux,txpbl=8";
    case GmacError::kUnknownPreset:
      return "starling.gmac=linux";
    case GmacError::kRepeatedKey:
      return "starling.gmac=linux,txpbl=8,rxpbl=16";
    case GmacError::kBadMode:
      return "starling.gmac=sddf,mode=thr";
    case GmacError::kBadTxThreshold:
      return "starling.gmac=linux,ttc=128";
    case GmacError::kBadRxThreshold:
      return "starling.gmac=linux,rtc=128";
    case GmacError::kBadPbl:
      return "starling.gmac=linux,txpbl=8";
    case GmacError::kBadSwitch:
      return "starling.gmac=sddf,csum=off";
    case GmacError::kBadRxDelay:
      return "starling.gmac=rxdelay=1500";
    case GmacError::kBadTxDelay:
      return "starling.gmac=txdelay=1950";
    case GmacError::kBadInversion:
      return "starling.gmac=txinv=10+100+1000";
    case GmacError::kBadDrive:
      return "starling.gmac=rxc_ua=2910,rxd_ua=2910";
    case GmacError::kBadBurst:
      return "starling.gmac=sddf,blen=32..256";
    case GmacError::kBadOutstanding:
      return "starling.gmac=linux,osr=16";
    case GmacError::kThresholdUnused:
      return "starling.gmac=sddf,mode=thr,ttc=128";
    case GmacError::kDuplicate:
      return "starling.gmac=linux";
  }
  return "";
}

GmacChoice parse_gmac_bootargs(std::string_view bootargs, const Params& base) {
  GmacChoice choice;
  choice.params = base;
  const BootargValue arg = bootarg_value(bootargs, kGmacBootarg.substr(0, kGmacBootarg.size() - 1));
  choice.found = arg.found;
  if (!arg.found) return choice;
  if (arg.repeated) {
    // Neither is used: which one was meant is anybody's guess.
    choice.error = GmacError::kDuplicate;
    choice.refused = arg.value;
    return choice;
  }
  const Outcome outcome = parse_value(arg.value, base, &choice.params);
  if (outcome.error != GmacError::kNone) {
    choice.params = base;
    choice.error = outcome.error;
    choice.refused = arg.value;
    choice.item = outcome.item;
  } else {
    choice.value = arg.value;
  }
  return choice;
}

GmacChoice choose_gmac_params(const fdt::DeviceTree* tree, const Params& base) {
  GmacChoice none;
  none.params = base;
  if (tree == nullptr) return none;
  auto chosen = fdt::read_chosen(*tree);
  if (!chosen.ok() || !chosen->bootargs) return none;
  return parse_gmac_bootargs(*chosen->bootargs, base);
}

}  // namespace starling::board
