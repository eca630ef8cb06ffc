#include "drivers/dwmac/phy.h"

#include "kernel/hal/clock.h"

namespace starling::dwmac {
namespace {

// BMCR
constexpr std::uint16_t kBmcrReset = 1u << 15;
constexpr std::uint16_t kBmcrAutonegEnable = 1u << 12;
constexpr std::uint16_t kBmcrAutonegRestart = 1u << 9;
// BMSR
constexpr std::uint16_t kBmsrLink = 1u << 2;
// ANAR / ANLPAR: selector 00001 (IEEE 802.3) and the 10/100 abilities.
constexpr std::uint16_t kAnSelector8023 = 0x0001;
constexpr std::uint16_t kAn10Half = 1u << 5;
constexpr std::uint16_t kAn10Full = 1u << 6;
constexpr std::uint16_t kAn100Half = 1u << 7;
constexpr std::uint16_t kAn100Full = 1u << 8;
// 1000BASE-T control (advertise) and status (link partner).
constexpr std::uint16_t kGbcr1000Full = 1u << 9;
constexpr std::uint16_t kGbcr1000Half = 1u << 8;
constexpr std::uint16_t kGbsrPartner1000Full = 1u << 11;
constexpr std::uint16_t kGbsrPartner1000Half = 1u << 10;
// YT8531 specific status (docs/hardware/dwmac.md §8.2): 15:14 speed, 13 duplex, 11 resolved, 10
// link.
constexpr std::uint16_t kYtDuplex = 1u << 13;
constexpr std::uint16_t kYtResolved = 1u << 11;
constexpr std::uint16_t kYtLink = 1u << 10;
// YT8531 extended 0xA001 / 0xA003 (docs/hardware/dwmac.md §8.2): RXC_DLY_EN adds ~1.9 ns; the RX
// and TX delay fields count 150 ps steps.
constexpr std::uint16_t kYtRxcDelayEnable = 1u << 8;
constexpr std::uint32_t kYtRxcDelayPs = 1900;
constexpr std::uint32_t kYtDelayStepPs = 150;
constexpr std::uint16_t kYtRxDelayShift = 10;   // 13:10
constexpr std::uint16_t kYtFeTxDelayShift = 4;  // 7:4
constexpr std::uint16_t kYtGeTxDelayShift = 0;  // 3:0
constexpr std::uint16_t kYtDelayFieldMask = 0xF;

std::uint16_t delay_steps(std::uint32_t ps) {
  const std::uint32_t steps = (ps + kYtDelayStepPs / 2) / kYtDelayStepPs;
  return static_cast<std::uint16_t>(steps > kYtDelayFieldMask ? kYtDelayFieldMask : steps);
}

}  // namespace

Result<void> Phy::bring_up(Delays delays) {
  auto id1 = mdio_->read(address_, kPhyId1);
  if (!id1.ok()) return Unexpected(id1.error());
  auto id2 = mdio_->read(address_, kPhyId2);
  if (!id2.ok()) return Unexpected(id2.error());
  id_ = std::uint32_t{*id1} << 16 | *id2;
  if (id_ == 0 || id_ == 0xFFFF'FFFF) return Unexpected(Error::kNotFound);

  if (auto ok = mdio_->write(address_, kBmcr, kBmcrReset); !ok.ok()) return ok;
  const std::uint64_t deadline = hal::now_ns() + kResetTimeoutNs;
  for (;;) {
    auto bmcr = mdio_->read(address_, kBmcr);
    if (!bmcr.ok()) return Unexpected(bmcr.error());
    if ((*bmcr & kBmcrReset) == 0) break;
    if (hal::now_ns() > deadline) return Unexpected(Error::kTimedOut);
  }

  if (is_yt8531()) {
    if (auto ok = configure_yt8531_delays(delays); !ok.ok()) return ok;
  }
  if (auto ok = mdio_->write(address_, kAnar,
                             kAnSelector8023 | kAn10Half | kAn10Full | kAn100Half | kAn100Full);
      !ok.ok()) {
    return ok;
  }
  if (auto ok = mdio_->write(address_, kGbcr, kGbcr1000Full); !ok.ok()) return ok;
  return mdio_->write(address_, kBmcr, kBmcrAutonegEnable | kBmcrAutonegRestart);
}

Result<std::uint16_t> Phy::read_extended(std::uint16_t reg) const {
  if (auto ok = mdio_->write(address_, kYtExtAddress, reg); !ok.ok()) {
    return Unexpected(ok.error());
  }
  return mdio_->read(address_, kYtExtData);
}

Result<void> Phy::write_extended(std::uint16_t reg, std::uint16_t value) const {
  if (auto ok = mdio_->write(address_, kYtExtAddress, reg); !ok.ok()) return ok;
  return mdio_->write(address_, kYtExtData, value);
}

// RX delay: from 1.9 ns up, RXC_DLY_EN plus the rest in steps; below, the
// steps alone. TX delay: the same steps for gigabit and fast Ethernet.
Result<void> Phy::configure_yt8531_delays(Delays delays) const {
  auto chip = read_extended(kYtChipConfig);
  if (!chip.ok()) return Unexpected(chip.error());
  auto rgmii = read_extended(kYtRgmiiConfig1);
  if (!rgmii.ok()) return Unexpected(rgmii.error());
  std::uint16_t chip_value = *chip & ~kYtRxcDelayEnable;
  std::uint32_t rx_ps = delays.rx_ps;
  if (rx_ps >= kYtRxcDelayPs) {
    chip_value |= kYtRxcDelayEnable;
    rx_ps -= kYtRxcDelayPs;
  }
  const std::uint16_t tx_steps = delay_steps(delays.tx_ps);
  std::uint16_t rgmii_value =
      *rgmii & ~((kYtDelayFieldMask << kYtRxDelayShift) | (kYtDelayFieldMask << kYtFeTxDelayShift) |
                 (kYtDelayFieldMask << kYtGeTxDelayShift));
  rgmii_value |=
      static_cast<std::uint16_t>(delay_steps(rx_ps) << kYtRxDelayShift |
                                 tx_steps << kYtFeTxDelayShift | tx_steps << kYtGeTxDelayShift);
  if (auto ok = write_extended(kYtChipConfig, chip_value); !ok.ok()) return ok;
  return write_extended(kYtRgmiiConfig1, rgmii_value);
}

Result<PhyLink> Phy::poll() {
  // Latched low: the first read clears a past drop, the second is now.
  if (auto first = mdio_->read(address_, kBmsr); !first.ok()) return Unexpected(first.error());
  auto bmsr = mdio_->read(address_, kBmsr);
  if (!bmsr.ok()) return Unexpected(bmsr.error());
  if ((*bmsr & kBmsrLink) == 0) return PhyLink{.up = false};
  if (!is_yt8531()) return resolve_generic();

  auto status = mdio_->read(address_, kYtSpecificStatus);
  if (!status.ok()) return Unexpected(status.error());
  if ((*status & kYtLink) == 0 || (*status & kYtResolved) == 0) return PhyLink{.up = false};
  PhyLink link{.up = true, .full_duplex = (*status & kYtDuplex) != 0};
  switch (*status >> 14) {
    case 0:
      link.speed = LinkSpeed::k10;
      break;
    case 1:
      link.speed = LinkSpeed::k100;
      break;
    case 2:
      link.speed = LinkSpeed::k1000;
      break;
    default:
      return PhyLink{.up = false};  // reserved: not a link we can program
  }
  return link;
}

// Highest common ability: 1000 full/half, then 100 full/half, then 10.
Result<PhyLink> Phy::resolve_generic() const {
  auto gbcr = mdio_->read(address_, kGbcr);
  if (!gbcr.ok()) return Unexpected(gbcr.error());
  auto gbsr = mdio_->read(address_, kGbsr);
  if (!gbsr.ok()) return Unexpected(gbsr.error());
  if ((*gbcr & kGbcr1000Full) != 0 && (*gbsr & kGbsrPartner1000Full) != 0) {
    return PhyLink{.up = true, .speed = LinkSpeed::k1000, .full_duplex = true};
  }
  if ((*gbcr & kGbcr1000Half) != 0 && (*gbsr & kGbsrPartner1000Half) != 0) {
    return PhyLink{.up = true, .speed = LinkSpeed::k1000, .full_duplex = false};
  }
  auto anar = mdio_->read(address_, kAnar);
  if (!anar.ok()) return Unexpected(anar.error());
  auto anlpar = mdio_->read(address_, kAnlpar);
  if (!anlpar.ok()) return Unexpected(anlpar.error());
  const std::uint16_t common = *anar & *anlpar;
  if ((common & kAn100Full) != 0) return PhyLink{true, LinkSpeed::k100, true};
  if ((common & kAn100Half) != 0) return PhyLink{true, LinkSpeed::k100, false};
  if ((common & kAn10Full) != 0) return PhyLink{true, LinkSpeed::k10, true};
  return PhyLink{true, LinkSpeed::k10, false};
}

}  // namespace starling::dwmac
