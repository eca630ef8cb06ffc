#include "drivers/dwmac/model/rgmii_timing.h"

#include <string_view>

namespace starling::model {
namespace {

// The measured matrix, one row per RX delay, one column per TX delay (0,
// 150, ..., 1950 ps): G "success acquiring DHCP lease and no dropped packets
// to ping LAN address", M "failure acquiring DHCP lease or many dropped
// packets", X "non-functional", ? not in the report. Rows 1900 and 1950:
// RXC_DLY_EN with no steps, and 13 steps without it.
struct Row {
  unsigned rx_ps;
  std::string_view tx;  // 14 columns
};
constexpr Row kStar64Rows[] = {
    {0, "XXXXXXXXXXXXXX"},    {150, "XXXXXXXXXXXXXX"},  {300, "XXXXXXXXXXXXXX"},
    {450, "XXXXXXXXXXMXMM"},  {600, "XXXXXXXXMM?MGG"},  {750, "XXXXXXXXXMMGGG"},
    {900, "XXXXXXXXMMGGGG"},  {1050, "XXXXXXXMMMMGGG"}, {1200, "XXXXXXXXXMGGGG"},
    {1350, "XXXXXXXXXMGGGG"}, {1500, "XXXXXXXXMMGGGG"}, {1650, "XXXXXXXMMMGGGG"},
    {1800, "XXXXXXXMMMGGGG"}, {1900, "XXXXXXXXXXMMMG"}, {1950, "XXXXXXXXMM???G"},
};
constexpr unsigned kColumns = 14;
constexpr unsigned kStepPs = 150;
constexpr unsigned kMeasuredDrive = 3;  // 2910 µA at 1.8 V

RgmiiQuality quality_of(char c) {
  switch (c) {
    case 'G':
      return RgmiiQuality::kGood;
    case 'M':
      return RgmiiQuality::kMarginal;
    case 'X':
      return RgmiiQuality::kBroken;
    default:
      return RgmiiQuality::kUntested;
  }
}

const Row* row_for(unsigned rx_ps) {
  for (const Row& row : kStar64Rows) {
    if (row.rx_ps == rx_ps) return &row;
  }
  return nullptr;
}

// A failing cell is put down to TX whenever the same RX delay worked with
// some other TX delay (the RX delay shifts only RXC, the TX delay only TXC);
// RX is as good as the best cell of its row.
RgmiiQuality star64_tx(const RgmiiSetting& s) {
  if (!s.tx_clock_inverted) return RgmiiQuality::kUntested;
  if (s.speed_mbps != 1000) return RgmiiQuality::kGood;
  const Row* row = row_for(s.rx_delay_ps);
  if (row == nullptr || s.tx_delay_ps % kStepPs != 0 || s.tx_delay_ps / kStepPs >= kColumns) {
    return RgmiiQuality::kUntested;
  }
  return quality_of(row->tx[s.tx_delay_ps / kStepPs]);
}

RgmiiQuality star64_rx(const RgmiiSetting& s) {
  if (s.speed_mbps != 1000) return RgmiiQuality::kGood;
  if (s.rx_clock_drive != kMeasuredDrive || s.rx_data_drive != kMeasuredDrive) {
    return RgmiiQuality::kUntested;
  }
  const Row* row = row_for(s.rx_delay_ps);
  if (row == nullptr) return RgmiiQuality::kUntested;
  RgmiiQuality best = RgmiiQuality::kUntested;
  for (char c : row->tx) {
    const RgmiiQuality q = quality_of(c);
    if (static_cast<int>(q) < static_cast<int>(best)) best = q;
  }
  return best;
}

}  // namespace

const RgmiiTiming kStar64Gmac0Timing{"Star64 GMAC0 (YT8531, bottom port)", &star64_tx, &star64_rx};

}  // namespace starling::model
