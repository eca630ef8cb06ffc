#ifndef STARLING_DRIVERS_PHY_PHY_H_
#define STARLING_DRIVERS_PHY_PHY_H_

#include <cstdint>

#include "drivers/phy/mdio_bus.h"
#include "kernel/lib/result.h"

// An IEEE 802.3 clause-22 PHY on an MDIO bus (mdio_bus.h; on the Star64 the
// DWMAC's), apart from any MAC driver: identification, soft
// reset, autonegotiation (advertise everything up to 1000BASE-T full
// duplex, restart), and link polling. The Star64's Motorcomm YT8531
// (docs/hardware/dwmac.md §8, docs/hardware/star64-reference-drivers.md §1)
// gets its board settings on top: its specific status register (0x11) for
// real-time link, speed and duplex, and, in its extended registers (0x1E
// address / 0x1F data), the RGMII delays, the TX clock inversion per speed,
// the RX pad drive strengths and the RX clock kept running without a link.
namespace starling::phy {

enum class LinkSpeed : std::uint8_t { k10, k100, k1000 };

struct PhyLink {
  bool up = false;
  LinkSpeed speed = LinkSpeed::k1000;
  bool full_duplex = true;
  friend bool operator==(const PhyLink&, const PhyLink&) = default;
};

// What a board's wiring asks of a YT8531: the values Linux reads from the
// device tree (rx-/tx-internal-delay-ps, motorcomm,tx-clk-*-inverted,
// motorcomm,rx-clk-drv-microamp / rx-data-drv-microamp,
// motorcomm,keep-pll-enabled), in the same units, so a board's DT values
// copy over unchanged. Ignored for any other PHY.
struct Yt8531Settings {
  // The speeds at which the PHY inverts its TX clock (0xA003 bit 14), set
  // at every link change as Linux's yt8531_link_change_notify does.
  static constexpr std::uint8_t kInvert10 = 1, kInvert100 = 2, kInvert1000 = 4;

  // RX clock delay: 0 to 2250 ps in 150 ps steps (0xA003 13:10), or 1900 +
  // n * 150 ps up to 4150 (RXC_DLY_EN, 0xA001 bit 8, plus n steps); a value
  // both can express (1950) takes the first, as Linux's table does.
  std::uint16_t rx_delay_ps = 0;
  // TX clock delay at 1000 Mb/s: 0 to 2250 ps in 150 ps steps (0xA003 3:0).
  // The 10/100 field (7:4) is left as the PHY has it, as Linux leaves it.
  std::uint16_t tx_delay_ps = 0;
  std::uint8_t tx_clock_inverted = 0;
  // RX clock and RX data pad drive strength in µA (0xA010), one of the
  // eight values of the PHY's LDO voltage (1.8 V: 1200 2100 2700 2910 3110
  // 3600 3970 4350; 3.3 V: 3070 4080 4370 4680 5020 5450 5740 6140).
  // 0 leaves the PHY's own.
  std::uint16_t rx_clock_drive_ua = 0, rx_data_drive_ua = 0;
  // Clear ext 0xC bit 12 so RXC runs with no cable: the DWMAC's software
  // reset completes only while the PHY's RX clock runs (Linux's stmmac says
  // so and needs it too), and a reset may come at any time (a fatal bus
  // error). Linux sets it only for `motorcomm,keep-pll-enabled`.
  bool keep_rx_clock = true;

  friend bool operator==(const Yt8531Settings&, const Yt8531Settings&) = default;
};

// A board's PHY, set up apart from the MAC it serves: where it answers on
// MDIO and what the board's wiring asks of it (platform/star64/gmac0.h).
// Neutral defaults: the first MDIO address, no PHY-side delay or
// inversion, the PHY's own drive strengths, the RX clock kept running for
// the MAC's software reset.
struct PhyParams {
  std::uint8_t address = 0;
  Yt8531Settings settings{};
  friend bool operator==(const PhyParams&, const PhyParams&) = default;
};

class Phy {
 public:
  // Clause-22 registers (IEEE 802.3 22.2.4) and the YT8531's (docs/hardware/dwmac.md §8.2).
  static constexpr std::uint8_t kBmcr = 0x00;
  static constexpr std::uint8_t kBmsr = 0x01;
  static constexpr std::uint8_t kPhyId1 = 0x02;
  static constexpr std::uint8_t kPhyId2 = 0x03;
  static constexpr std::uint8_t kAnar = 0x04;
  static constexpr std::uint8_t kAnlpar = 0x05;
  static constexpr std::uint8_t kGbcr = 0x09;  // 1000BASE-T control
  static constexpr std::uint8_t kGbsr = 0x0A;  // 1000BASE-T status
  static constexpr std::uint8_t kYtSpecificStatus = 0x11;
  static constexpr std::uint8_t kYtExtAddress = 0x1E;
  static constexpr std::uint8_t kYtExtData = 0x1F;
  // Extended registers (docs/hardware/star64-reference-drivers.md §1.2-§1.5).
  static constexpr std::uint16_t kYtClockGating = 0x000C;  // 12 RX_CLK_EN: 1 = RXC off without link
  static constexpr std::uint16_t kYtChipConfig = 0xA001;   // 8 RXC_DLY_EN (1.9 ns), 5:4 LDO voltage
  static constexpr std::uint16_t kYtRgmiiConfig1 = 0xA003;  // 14 TX clock inverted, delays
  static constexpr std::uint16_t kYtPadDrive = 0xA010;      // RXC 15:13, RXD 12 + 5:4

  static constexpr std::uint32_t kIdYt8531 = 0x4F51'E91B;
  static constexpr std::uint32_t kIdYt8531S = 0x4F51'E91A;

  // A PHY reset completes within 0.5 s (IEEE 802.3 22.2.4.1.1).
  static constexpr std::uint64_t kResetTimeoutNs = 500'000'000;

  // The delay and drive-strength encodings (docs/hardware/star64-reference-drivers.md
  // §1.3, §1.4). -1: the value has no encoding.
  static constexpr int rx_delay_code(std::uint32_t ps) {
    if (ps % 150 == 0 && ps <= 2250) return static_cast<int>(ps / 150);
    if (ps >= 1900 && (ps - 1900) % 150 == 0 && ps <= 4150)
      return 16 + static_cast<int>((ps - 1900) / 150);
    return -1;  // 16 + n: RXC_DLY_EN with n steps
  }
  static constexpr int tx_delay_code(std::uint32_t ps) {
    return ps % 150 == 0 && ps <= 2250 ? static_cast<int>(ps / 150) : -1;
  }
  static constexpr int drive_strength_code(std::uint32_t ua, bool ldo_1v8) {
    constexpr std::uint16_t k1v8[] = {1200, 2100, 2700, 2910, 3110, 3600, 3970, 4350};
    constexpr std::uint16_t k3v3[] = {3070, 4080, 4370, 4680, 5020, 5450, 5740, 6140};
    for (int ds = 0; ds < 8; ++ds) {
      if ((ldo_1v8 ? k1v8 : k3v3)[ds] == ua) return ds;
    }
    return -1;
  }
  // A drive strength some LDO voltage offers (0 = leave the PHY's own).
  static constexpr bool valid_drive_strength(std::uint32_t ua) {
    return ua == 0 || drive_strength_code(ua, true) >= 0 || drive_strength_code(ua, false) >= 0;
  }
  static constexpr bool valid(const Yt8531Settings& s) {
    return rx_delay_code(s.rx_delay_ps) >= 0 && tx_delay_code(s.tx_delay_ps) >= 0 &&
           s.tx_clock_inverted <= 7 && valid_drive_strength(s.rx_clock_drive_ua) &&
           valid_drive_strength(s.rx_data_drive_ua);
  }

  Phy() = default;
  Phy(const MdioBus* mdio, std::uint8_t address) : mdio_(mdio), address_(address) {}

  // Reads the ID (kNotFound if nothing answers: all ones or all zeros),
  // soft-resets (kTimedOut if BMCR.15 never clears), programs a YT8531's
  // settings (kInvalidArgument for settings valid() refuses), advertises
  // and restarts autonegotiation. Does not wait for the link. A drive
  // strength the PHY's LDO voltage does not offer is left as the PHY has
  // it and reported by drive_strength_refused(), not an error: the port
  // may well work without it.
  Result<void> bring_up(const Yt8531Settings& settings);

  // The link now. BMSR.link is latched low: the first read reports a drop
  // since the last poll, the second the present state. The YT8531's
  // specific status gives speed and duplex directly; other PHYs resolve
  // them from the advertisements.
  Result<PhyLink> poll();

  // After every link change: a YT8531's TX clock inversion for the new
  // speed (nothing while the link is down, nothing for other PHYs).
  Result<void> apply_link(const PhyLink& link);

  std::uint32_t id() const { return id_; }
  static constexpr bool is_yt8531(std::uint32_t id) { return id == kIdYt8531 || id == kIdYt8531S; }
  bool is_yt8531() const { return is_yt8531(id_); }
  bool drive_strength_refused() const { return drive_strength_refused_; }
  // The LDO voltage field of 0xA001 (5:4) read at bring-up: 0 = 3.3 V, 2 or 3 = 1.8 V.
  std::uint16_t ldo_field() const { return ldo_field_; }

  Result<std::uint16_t> read_extended(std::uint16_t reg) const;
  Result<void> write_extended(std::uint16_t reg, std::uint16_t value) const;
  // Read-modify-write of the bits in `mask`; no write if they already hold `bits`.
  Result<void> modify_extended(std::uint16_t reg, std::uint16_t mask, std::uint16_t bits) const;

 private:
  Result<void> configure_yt8531(const Yt8531Settings& settings);
  Result<PhyLink> resolve_generic() const;

  const MdioBus* mdio_ = nullptr;
  std::uint8_t address_ = 0;
  std::uint32_t id_ = 0;
  std::uint8_t tx_clock_inverted_ = 0;
  std::uint16_t ldo_field_ = 0;
  bool drive_strength_refused_ = false;
};

}  // namespace starling::phy

#endif  // STARLING_DRIVERS_PHY_PHY_H_
