#ifndef STARLING_DRIVERS_DWMAC_MODEL_PHY_MODEL_H_
#define STARLING_DRIVERS_DWMAC_MODEL_PHY_MODEL_H_

#include <cstdint>
#include <map>

#include "drivers/dwmac/model/rgmii_timing.h"

// An IEEE 802.3 clause-22 PHY behind the DWMAC's MDIO bus, in the flavour of
// the Star64's Motorcomm YT8531 (docs/hardware/dwmac.md §8 "PHY (Star64)").
//
// Modelled: BMCR (reset and AN restart self-clear), BMSR (link latched low
// until read; AN complete after `autoneg_reads` BMSR reads), PHYID1/2, ANAR,
// ANLPAR, 1000BASE-T control/status, the YT8531 specific status (0x11) and the
// extended-register window (0x1E address / 0x1F data). Other registers read 0
// and ignore writes.
//
// At construction the PHY is as U-Boot leaves it: autonegotiation done, link
// as in Options, no latched link-down. A BMCR reset, an AN restart or a link
// coming up (set_link) starts autonegotiation again.
//
// The YT8531's extended registers that decide whether frames cross the
// RGMII link intact (docs/hardware/star64-reference-drivers.md §1): the RX
// and TX delays and RXC_DLY_EN (0xA003, 0xA001), the TX clock inversion
// (0xA003 bit 14), the RX pad drive strengths (0xA010); with Options::timing
// set, each frame each way is judged by what was measured on that board
// (rgmii_timing.h), and a damaged one is counted. The RX clock (what the
// MAC's software reset needs) runs while a partner is on the cable, or
// always once ext 0xC bit 12 is cleared. Reset values the sources do not give are stand-ins
// chosen so that a driver relying on them is caught: 0xA003 and 0xA010 read
// 0 (no delay, weakest drive), 0xC bit 12 is set (RXC stops without a link,
// as Linux's keep-pll-enabled comment implies), 0x27 bit 15 set (sleep).
// 0xA001's LDO field reads 2 (1.8 V): the Star64's 2910 µA exists only in
// the 1.8 V table. Whether a BMCR reset restores them is not published;
// Options::reset_clears_extended says (default: it does, the worst case).
namespace starling::model {

class PhyModel {
 public:
  enum class Speed { k10, k100, k1000 };
  struct Options {
    std::uint8_t address = 0;        // Star64 eth0: PHY at MDIO address 0
    std::uint32_t id = 0x4F51'E91B;  // YT8531 (PHYID1 << 16 | PHYID2)
    bool link_up = true;
    Speed speed = Speed::k1000;
    bool full_duplex = true;
    // BMSR reads after an AN restart/reset that still show AN incomplete and
    // link down; the next read shows AN complete (and, link being latched
    // low, the one after that shows the link up).
    unsigned autoneg_reads = 2;
    // The board's RGMII wiring: null = any setting carries frames intact.
    const RgmiiTiming* timing = nullptr;
    bool reset_clears_extended = true;
  };

  // Clause-22 register numbers (IEEE 802.3 22.2.4; YT8531 per docs/hardware/dwmac.md §8.2).
  static constexpr std::uint8_t kBmcr = 0x00;
  static constexpr std::uint8_t kBmsr = 0x01;
  static constexpr std::uint8_t kPhyId1 = 0x02;
  static constexpr std::uint8_t kPhyId2 = 0x03;
  static constexpr std::uint8_t kAnar = 0x04;
  static constexpr std::uint8_t kAnlpar = 0x05;
  static constexpr std::uint8_t kGbcr = 0x09;  // 1000BASE-T control
  static constexpr std::uint8_t kGbsr = 0x0A;  // 1000BASE-T status
  static constexpr std::uint8_t kSpecificStatus = 0x11;
  static constexpr std::uint8_t kExtAddress = 0x1E;
  static constexpr std::uint8_t kExtData = 0x1F;

  // Two constructors, not a default argument: clang cannot use Options'
  // member initializers inside PhyModel's own definition.
  PhyModel() : PhyModel(Options{}) {}
  explicit PhyModel(Options options);

  std::uint16_t read(std::uint8_t reg);
  void write(std::uint8_t reg, std::uint16_t value);

  // The cable: a link going down latches BMSR.link low; one coming up runs
  // autonegotiation (autoneg_reads BMSR reads) at the given speed/duplex.
  void set_link(bool up, Speed speed = Speed::k1000, bool full_duplex = true);

  std::uint16_t extended(std::uint16_t reg) const;
  std::uint8_t address() const { return options_.address; }
  bool link_up() const { return options_.link_up; }
  Speed speed() const { return options_.speed; }
  bool full_duplex() const { return options_.full_duplex; }
  // Real-time link: cable up and autonegotiation (if enabled) done.
  bool link_established() const;
  // RXC to the MAC: with a partner on the cable, or always once ext 0xC
  // bit 12 is clear.
  bool rx_clock_running() const;

  // The RGMII link as the extended registers have set it up, at the
  // present speed (Options::timing decides).
  RgmiiQuality tx_quality() const;
  RgmiiQuality rx_quality() const;
  // One frame crossing the MAC-PHY link: false if it arrives damaged (bad
  // FCS at the link partner for TX, a CRC error at the MAC for RX);
  // counted. Marginal settings damage one frame in four.
  bool carry_tx_frame();
  bool carry_rx_frame();

  struct Counters {
    std::uint64_t reads = 0, writes = 0, resets = 0, autoneg_restarts = 0;
    std::uint64_t tx_frames_damaged = 0, rx_frames_damaged = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  void reset_registers();
  void reset_extended();
  void restart_autoneg();
  std::uint16_t read_bmsr();
  RgmiiSetting setting() const;
  bool carry(RgmiiQuality quality, std::uint64_t& sequence, std::uint64_t& damaged);

  Options options_;
  Counters counters_;
  std::uint16_t bmcr_ = 0;
  std::uint16_t anar_ = 0;
  std::uint16_t gbcr_ = 0;
  std::uint16_t ext_address_ = 0;
  std::map<std::uint16_t, std::uint16_t> ext_;
  bool reset_pending_read_ = false;  // BMCR.15 still reads 1 once after a reset
  unsigned autoneg_remaining_ = 0;   // BMSR reads until AN completes
  bool autoneg_running_ = false;
  bool link_latched_low_ = false;
  std::uint64_t tx_sequence_ = 0, rx_sequence_ = 0;
};

}  // namespace starling::model

#endif  // STARLING_DRIVERS_DWMAC_MODEL_PHY_MODEL_H_
