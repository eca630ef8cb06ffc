#include "drivers/phy/phy.h"

#include "drivers/mmio/poll_deadline.h"

namespace starling::phy {
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
// YT8531 extended registers (docs/hardware/star64-reference-drivers.md §1.2-§1.5).
constexpr std::uint16_t kYtRxClockGated = 1u << 12;     // 0xC: RXC off while there is no link
constexpr std::uint16_t kYtRxcDelayEnable = 1u << 8;    // 0xA001: +1.9 ns on RXC
constexpr std::uint16_t kYtLdoShift = 4;                // 0xA001 5:4: 0 = 3.3 V, 2 = 1.8 V
constexpr std::uint16_t kYtTxClockInverted = 1u << 14;  // 0xA003
constexpr std::uint16_t kYtRxDelayShift = 10;           // 0xA003 13:10
constexpr std::uint16_t kYtGeTxDelayShift = 0;          // 0xA003 3:0
constexpr std::uint16_t kYtDelayFieldMask = 0xF;
constexpr std::uint16_t kYtRxcDriveShift = 13;       // 0xA010 15:13
constexpr std::uint16_t kYtRxdDriveHigh = 1u << 12;  // 0xA010: ds bit 2
constexpr std::uint16_t kYtRxdDriveLowShift = 4;     // 0xA010 5:4: ds bits 1:0

}  // namespace

Result<void> Phy::bring_up(const Yt8531Settings& settings) {
  auto id1 = mdio_->read(address_, kPhyId1);
  if (!id1.ok()) return Unexpected(id1.error());
  auto id2 = mdio_->read(address_, kPhyId2);
  if (!id2.ok()) return Unexpected(id2.error());
  id_ = std::uint32_t{*id1} << 16 | *id2;
  if (id_ == 0 || id_ == 0xFFFF'FFFF) return Unexpected(Error::kNotFound);
  if (is_yt8531() && !valid(settings)) return Unexpected(Error::kInvalidArgument);

  if (auto ok = mdio_->write(address_, kBmcr, kBmcrReset); !ok.ok()) return ok;
  mmio::PollDeadline deadline(kResetTimeoutNs);
  for (;;) {
    auto bmcr = mdio_->read(address_, kBmcr);
    if (!bmcr.ok()) return Unexpected(bmcr.error());
    if ((*bmcr & kBmcrReset) == 0) break;
    if (deadline.passed()) return Unexpected(Error::kTimedOut);
  }

  if (is_yt8531()) {
    if (auto ok = configure_yt8531(settings); !ok.ok()) return ok;
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

Result<void> Phy::modify_extended(std::uint16_t reg, std::uint16_t mask, std::uint16_t bits) const {
  auto value = read_extended(reg);
  if (!value.ok()) return Unexpected(value.error());
  const std::uint16_t wanted = static_cast<std::uint16_t>((*value & ~mask) | (bits & mask));
  if (wanted == *value) return {};
  return write_extended(reg, wanted);
}

// After every soft reset (whether it clears these registers is not
// published: docs/hardware/star64-reference-drivers.md §1.6), in U-Boot's
// order: delays (0xA001, 0xA003), then the RX clock, then drive strength.
// Linux's ytphy_rgmii_clk_delay_config touches only RXC_DLY_EN, RX_DELAY
// and GE_TX_DELAY; so does this.
Result<void> Phy::configure_yt8531(const Yt8531Settings& settings) {
  tx_clock_inverted_ = settings.tx_clock_inverted;
  const int rx = rx_delay_code(settings.rx_delay_ps);
  const int tx = tx_delay_code(settings.tx_delay_ps);
  const bool rxc_delay = rx >= 16;
  auto chip = read_extended(kYtChipConfig);
  if (!chip.ok()) return Unexpected(chip.error());
  ldo_field_ = (*chip >> kYtLdoShift) & 3;
  const auto chip_value = static_cast<std::uint16_t>((*chip & ~kYtRxcDelayEnable) |
                                                     (rxc_delay ? kYtRxcDelayEnable : 0));
  if (chip_value != *chip) {
    if (auto ok = write_extended(kYtChipConfig, chip_value); !ok.ok()) return ok;
  }
  const auto rx_steps = static_cast<std::uint16_t>(rxc_delay ? rx - 16 : rx);
  if (auto ok = modify_extended(
          kYtRgmiiConfig1,
          kYtDelayFieldMask << kYtRxDelayShift | kYtDelayFieldMask << kYtGeTxDelayShift,
          static_cast<std::uint16_t>(rx_steps << kYtRxDelayShift | tx << kYtGeTxDelayShift));
      !ok.ok()) {
    return ok;
  }
  if (settings.keep_rx_clock) {
    if (auto ok = modify_extended(kYtClockGating, kYtRxClockGated, 0); !ok.ok()) return ok;
  }
  // Drive strength: the code for the µA value depends on the LDO voltage the
  // board straps (Linux's yt8531_get_ldo_vol: 0 = 3.3 V, 2 and 3 = 1.8 V).
  drive_strength_refused_ = false;
  std::uint16_t mask = 0, bits = 0;
  const bool known_voltage = ldo_field_ != 1;
  const bool ldo_1v8 = ldo_field_ >= 2;
  if (settings.rx_clock_drive_ua != 0) {
    const int ds = known_voltage ? drive_strength_code(settings.rx_clock_drive_ua, ldo_1v8) : -1;
    if (ds < 0) {
      drive_strength_refused_ = true;
    } else {
      mask |= 7u << kYtRxcDriveShift;
      bits |= static_cast<std::uint16_t>(ds << kYtRxcDriveShift);
    }
  }
  if (settings.rx_data_drive_ua != 0) {
    const int ds = known_voltage ? drive_strength_code(settings.rx_data_drive_ua, ldo_1v8) : -1;
    if (ds < 0) {
      drive_strength_refused_ = true;
    } else {
      mask |= kYtRxdDriveHigh | 3u << kYtRxdDriveLowShift;
      bits |= static_cast<std::uint16_t>(((ds & 4) != 0 ? kYtRxdDriveHigh : 0) |
                                         (ds & 3) << kYtRxdDriveLowShift);
    }
  }
  if (mask == 0) return {};
  return modify_extended(kYtPadDrive, mask, bits);
}

// The bit is set or cleared for every speed, as Linux does when the board
// enables the adjustment; the write is skipped when it already holds.
Result<void> Phy::apply_link(const PhyLink& link) {
  if (!is_yt8531() || !link.up) return {};
  const std::uint8_t speed_bit = link.speed == LinkSpeed::k1000  ? Yt8531Settings::kInvert1000
                                 : link.speed == LinkSpeed::k100 ? Yt8531Settings::kInvert100
                                                                 : Yt8531Settings::kInvert10;
  return modify_extended(kYtRgmiiConfig1, kYtTxClockInverted,
                         (tx_clock_inverted_ & speed_bit) != 0 ? kYtTxClockInverted : 0);
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

}  // namespace starling::phy
