#ifndef STARLING_DRIVERS_DWMAC_MODEL_RGMII_TIMING_H_
#define STARLING_DRIVERS_DWMAC_MODEL_RGMII_TIMING_H_

#include <cstdint>

// Whether frames cross a board's RGMII link (MAC <-> PHY) intact, given how
// the PHY's delays, TX clock inversion and drive strengths are set. Whether
// a setting works is a property of the board's traces, not of the PHY, and
// cannot be derived from a datasheet: it is what was measured on the board.
namespace starling::model {

enum class RgmiiQuality : std::uint8_t {
  kGood,      // measured: no frames lost
  kMarginal,  // measured: many frames lost (the model damages one in four)
  kBroken,    // measured: nothing gets through
  kUntested,  // never measured on the board: treated as broken
};

// The PHY's registers as timing: delays in ps (RXC_DLY_EN counts 1900),
// drive strengths as the YT8531's ds codes (0-7).
struct RgmiiSetting {
  unsigned speed_mbps = 1000;
  unsigned rx_delay_ps = 0;
  unsigned tx_delay_ps = 0;  // the field for this speed (GE_TX at 1000, FE_TX below)
  bool tx_clock_inverted = false;
  unsigned rx_clock_drive = 0, rx_data_drive = 0;
};

struct RgmiiTiming {
  const char* board;
  RgmiiQuality (*tx)(const RgmiiSetting&);  // MAC -> PHY -> wire
  RgmiiQuality (*rx)(const RgmiiSetting&);  // wire -> PHY -> MAC
};

// The Star64's GMAC0 and its YT8531 (the bottom port), from E Shattow's
// measurements on a Star64 with Linux 6.11.2 and U-Boot v2024.10
// (docs/hardware/star64-reference-drivers.md §2.1): every RX delay 0-1950 ps
// against every TX delay 0-1950 ps, at 1000 Mb/s, with the TX clock inverted
// and 2910 µA drive (ds 3) on RXC and RXD, as the Star64 device tree has.
// Below 1000 Mb/s (a 25 or 2.5 MHz clock, 40 or 400 ns a cycle) delays of
// at most 2.25 ns do not matter; the TX clock inversion the device tree
// asks for at 10 and 100 Mb/s is the only one known to work there.
extern const RgmiiTiming kStar64Gmac0Timing;

}  // namespace starling::model

#endif  // STARLING_DRIVERS_DWMAC_MODEL_RGMII_TIMING_H_
