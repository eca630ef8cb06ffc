#include "drivers/dwmac/model/phy_model.h"

namespace starling::model {
namespace {

// BMCR (IEEE 802.3 22.2.4.1; docs/hardware/dwmac.md §8.2 "0 BMCR").
constexpr std::uint16_t kBmcrReset = 1u << 15;
constexpr std::uint16_t kBmcrSpeed1000 = 1u << 6;  // with bit 13 clear: 1000 Mb/s
constexpr std::uint16_t kBmcrAnEnable = 1u << 12;
constexpr std::uint16_t kBmcrAnRestart = 1u << 9;
constexpr std::uint16_t kBmcrFullDuplex = 1u << 8;
constexpr std::uint16_t kBmcrDefault = kBmcrAnEnable | kBmcrFullDuplex | kBmcrSpeed1000;

// BMSR: 10/100 half/full abilities, extended status, preamble suppression,
// AN ability, extended capability; docs/hardware/dwmac.md §8.2 "2 link (latched low), 5 AN
// complete".
constexpr std::uint16_t kBmsrAbilities = 0x7949;
constexpr std::uint16_t kBmsrLink = 1u << 2;
constexpr std::uint16_t kBmsrAnComplete = 1u << 5;

constexpr std::uint16_t kAnarDefault = 0x01E1;    // 10/100 half/full, IEEE 802.3 selector
constexpr std::uint16_t kAnlparPartner = 0x45E1;  // partner: 10/100 half/full, ack, pause
constexpr std::uint16_t kGbcrDefault = 0x0200;    // advertise 1000BASE-T full duplex
// 1000BASE-T status: local/remote receiver OK, partner 1000 full (11) / half (10).
constexpr std::uint16_t kGbsrReceiversOk = 0x3000;
constexpr std::uint16_t kGbsrPartnerFull = 1u << 11;
constexpr std::uint16_t kGbsrPartnerHalf = 1u << 10;

// YT8531 specific status 0x11 (docs/hardware/dwmac.md §8.2): 15:14 speed, 13 duplex,
// 11 resolved, 10 real-time link.
constexpr unsigned kSsSpeedShift = 14;
constexpr std::uint16_t kSsFullDuplex = 1u << 13;
constexpr std::uint16_t kSsResolved = 1u << 11;
constexpr std::uint16_t kSsLink = 1u << 10;

// YT8531 extended registers (docs/hardware/star64-reference-drivers.md §1.2-§1.5).
constexpr std::uint16_t kExtClockGating = 0x000C;
constexpr std::uint16_t kExtSleepControl = 0x0027;
constexpr std::uint16_t kExtChipConfig = 0xA001;
constexpr std::uint16_t kExtRgmiiConfig1 = 0xA003;
constexpr std::uint16_t kExtPadDrive = 0xA010;
constexpr std::uint16_t kExtSynce = 0xA012;
constexpr std::uint16_t kRxClockGated = 1u << 12;     // 0xC
constexpr std::uint16_t kSleepEnable = 1u << 15;      // 0x27
constexpr std::uint16_t kRxcDelayEnable = 1u << 8;    // 0xA001
constexpr std::uint16_t kLdo1v8 = 2u << 4;            // 0xA001 5:4
constexpr std::uint16_t kTxClockInverted = 1u << 14;  // 0xA003
constexpr unsigned kDelayStepPs = 150;
constexpr unsigned kRxcDelayPs = 1900;

}  // namespace

PhyModel::PhyModel(Options options) : options_(options) {
  reset_registers();
  // As U-Boot leaves it: autonegotiation done, no latched link-down.
  autoneg_running_ = false;
  link_latched_low_ = !options_.link_up;
}

void PhyModel::reset_registers() {
  bmcr_ = kBmcrDefault;
  anar_ = kAnarDefault;
  gbcr_ = kGbcrDefault;
  ext_address_ = 0;
  reset_extended();
}

// The stand-in reset values of the header comment.
void PhyModel::reset_extended() {
  ext_ = {{kExtClockGating, kRxClockGated},
          {kExtSleepControl, kSleepEnable},
          {kExtChipConfig, kLdo1v8},
          {kExtRgmiiConfig1, 0},
          {kExtPadDrive, 0},
          {kExtSynce, 0}};
}

void PhyModel::restart_autoneg() {
  autoneg_running_ = true;
  autoneg_remaining_ = options_.autoneg_reads;
  // The link drops while autonegotiation runs.
  link_latched_low_ = true;
}

bool PhyModel::link_established() const {
  if (!options_.link_up) return false;
  return (bmcr_ & kBmcrAnEnable) == 0 || !autoneg_running_;
}

// With a partner on the cable: a real PHY autonegotiates by itself in a few
// seconds, while this model's autonegotiation advances only by BMSR reads
// (a stand-in for time), which a MAC in reset cannot make.
bool PhyModel::rx_clock_running() const {
  return options_.link_up || (extended(kExtClockGating) & kRxClockGated) == 0;
}

RgmiiSetting PhyModel::setting() const {
  const std::uint16_t chip = extended(kExtChipConfig);
  const std::uint16_t rgmii = extended(kExtRgmiiConfig1);
  const std::uint16_t drive = extended(kExtPadDrive);
  const bool gigabit = options_.speed == Speed::k1000;
  return RgmiiSetting{
      .speed_mbps = gigabit                         ? 1000u
                    : options_.speed == Speed::k100 ? 100u
                                                    : 10u,
      .rx_delay_ps = ((chip & kRxcDelayEnable) != 0 ? kRxcDelayPs : 0u) +
                     ((rgmii >> 10) & 0xFu) * kDelayStepPs,
      .tx_delay_ps = (gigabit ? rgmii & 0xFu : (rgmii >> 4) & 0xFu) * kDelayStepPs,
      .tx_clock_inverted = (rgmii & kTxClockInverted) != 0,
      .rx_clock_drive = (drive >> 13) & 7u,
      .rx_data_drive = ((drive >> 12) & 1u) << 2 | ((drive >> 4) & 3u),
  };
}

RgmiiQuality PhyModel::tx_quality() const {
  return options_.timing == nullptr ? RgmiiQuality::kGood : options_.timing->tx(setting());
}

RgmiiQuality PhyModel::rx_quality() const {
  return options_.timing == nullptr ? RgmiiQuality::kGood : options_.timing->rx(setting());
}

bool PhyModel::carry(RgmiiQuality quality, std::uint64_t& sequence, std::uint64_t& damaged) {
  const bool intact =
      quality == RgmiiQuality::kGood || (quality == RgmiiQuality::kMarginal && sequence % 4 != 3);
  ++sequence;
  if (!intact) ++damaged;
  return intact;
}

bool PhyModel::carry_tx_frame() {
  return carry(tx_quality(), tx_sequence_, counters_.tx_frames_damaged);
}

bool PhyModel::carry_rx_frame() {
  return carry(rx_quality(), rx_sequence_, counters_.rx_frames_damaged);
}

std::uint16_t PhyModel::read_bmsr() {
  if (autoneg_running_) {
    if (autoneg_remaining_ > 0) {
      --autoneg_remaining_;
    } else {
      autoneg_running_ = false;
    }
  }
  const bool link_now = link_established();
  std::uint16_t value = kBmsrAbilities;
  if ((bmcr_ & kBmcrAnEnable) != 0 && !autoneg_running_ && options_.link_up)
    value |= kBmsrAnComplete;
  // Latched low (IEEE 802.3 22.2.4.2.13): a link failure stays visible until
  // this read; the read then re-arms the latch with the current state.
  if (link_now && !link_latched_low_) value |= kBmsrLink;
  link_latched_low_ = !link_now;
  return value;
}

std::uint16_t PhyModel::read(std::uint8_t reg) {
  ++counters_.reads;
  const bool up = link_established();
  switch (reg) {
    case kBmcr: {
      std::uint16_t value = bmcr_;
      if (reset_pending_read_) {
        value |= kBmcrReset;
        reset_pending_read_ = false;
      }
      return value;
    }
    case kBmsr:
      return read_bmsr();
    case kPhyId1:
      return static_cast<std::uint16_t>(options_.id >> 16);
    case kPhyId2:
      return static_cast<std::uint16_t>(options_.id & 0xFFFF);
    case kAnar:
      return anar_;
    case kAnlpar:
      return up ? kAnlparPartner : 0;
    case kGbcr:
      return gbcr_;
    case kGbsr:
      if (!up || options_.speed != Speed::k1000) return 0;
      return kGbsrReceiversOk | (options_.full_duplex ? kGbsrPartnerFull : kGbsrPartnerHalf);
    case kSpecificStatus: {
      if (!up) return 0;
      const unsigned speed = options_.speed == Speed::k1000  ? 2
                             : options_.speed == Speed::k100 ? 1
                                                             : 0;
      std::uint16_t value = static_cast<std::uint16_t>(speed << kSsSpeedShift);
      if (options_.full_duplex) value |= kSsFullDuplex;
      return value | kSsResolved | kSsLink;
    }
    case kExtAddress:
      return ext_address_;
    case kExtData:
      return extended(ext_address_);
    default:
      return 0;
  }
}

void PhyModel::write(std::uint8_t reg, std::uint16_t value) {
  ++counters_.writes;
  switch (reg) {
    case kBmcr:
      if ((value & kBmcrReset) != 0) {
        // The reset returns every register to its default; BMCR.15 reads 1
        // once more and then self-clears.
        ++counters_.resets;
        {
          const auto kept = ext_;
          reset_registers();
          if (!options_.reset_clears_extended) ext_ = kept;
        }
        reset_pending_read_ = true;
        restart_autoneg();
        return;
      }
      bmcr_ = static_cast<std::uint16_t>(value & ~(kBmcrReset | kBmcrAnRestart));
      if ((value & kBmcrAnRestart) != 0) {
        ++counters_.autoneg_restarts;
        restart_autoneg();
      }
      return;
    case kAnar:
      anar_ = value;
      return;
    case kGbcr:
      gbcr_ = value;
      return;
    case kExtAddress:
      ext_address_ = value;
      return;
    case kExtData:
      if (auto it = ext_.find(ext_address_); it != ext_.end()) it->second = value;
      return;
    default:
      return;
  }
}

void PhyModel::set_link(bool up, Speed speed, bool full_duplex) {
  const bool was_up = options_.link_up;
  options_.link_up = up;
  options_.speed = speed;
  options_.full_duplex = full_duplex;
  if (!up) {
    link_latched_low_ = true;
  } else if (!was_up) {
    restart_autoneg();
  }
}

std::uint16_t PhyModel::extended(std::uint16_t reg) const {
  const auto it = ext_.find(reg);
  return it == ext_.end() ? 0 : it->second;
}

}  // namespace starling::model
