#ifndef STARLING_DRIVERS_DWMAC_PHY_H_
#define STARLING_DRIVERS_DWMAC_PHY_H_

#include <cstdint>

#include "drivers/dwmac/mdio.h"
#include "kernel/lib/result.h"

// An IEEE 802.3 clause-22 PHY on the MAC's MDIO bus: identification, soft
// reset, autonegotiation (advertise everything up to 1000BASE-T full
// duplex, restart), and link polling. The Star64's Motorcomm YT8531
// (docs/hardware/dwmac.md §8) gets two extras: its specific status register (0x11) for
// real-time link, speed and duplex, and the RGMII delays in its extended
// registers (0x1E address / 0x1F data), which the board supplies.
namespace starling::dwmac {

enum class LinkSpeed : std::uint8_t { k10, k100, k1000 };

struct PhyLink {
  bool up = false;
  LinkSpeed speed = LinkSpeed::k1000;
  bool full_duplex = true;
  friend bool operator==(const PhyLink&, const PhyLink&) = default;
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
  static constexpr std::uint16_t kYtChipConfig = 0xA001;  // 8 RXC_DLY_EN (~1.9 ns)
  static constexpr std::uint16_t kYtRgmiiConfig1 = 0xA003;

  static constexpr std::uint32_t kIdYt8531 = 0x4F51'E91B;
  static constexpr std::uint32_t kIdYt8531S = 0x4F51'E91A;

  // A PHY reset completes within 0.5 s (IEEE 802.3 22.2.4.1.1).
  static constexpr std::uint64_t kResetTimeoutNs = 500'000'000;

  struct Delays {
    std::uint32_t rx_ps = 0;
    std::uint32_t tx_ps = 0;
  };

  Phy() = default;
  Phy(const Mdio* mdio, std::uint8_t address) : mdio_(mdio), address_(address) {}

  // Reads the ID (kNotFound if nothing answers: all ones or all zeros),
  // soft-resets (kTimedOut if BMCR.15 never clears), programs the YT8531's
  // RGMII delays, advertises and restarts autonegotiation. Does not wait
  // for the link.
  Result<void> bring_up(Delays delays);

  // The link now. BMSR.link is latched low: the first read reports a drop
  // since the last poll, the second the present state. The YT8531's
  // specific status gives speed and duplex directly; other PHYs resolve
  // them from the advertisements.
  Result<PhyLink> poll();

  std::uint32_t id() const { return id_; }
  bool is_yt8531() const { return id_ == kIdYt8531 || id_ == kIdYt8531S; }

  Result<std::uint16_t> read_extended(std::uint16_t reg) const;
  Result<void> write_extended(std::uint16_t reg, std::uint16_t value) const;

 private:
  Result<void> configure_yt8531_delays(Delays delays) const;
  Result<PhyLink> resolve_generic() const;

  const Mdio* mdio_ = nullptr;
  std::uint8_t address_ = 0;
  std::uint32_t id_ = 0;
};

}  // namespace starling::dwmac

#endif  // STARLING_DRIVERS_DWMAC_PHY_H_
