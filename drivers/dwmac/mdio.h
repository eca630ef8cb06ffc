#ifndef STARLING_DRIVERS_DWMAC_MDIO_H_
#define STARLING_DRIVERS_DWMAC_MDIO_H_

#include <cstdint>

#include "drivers/mmio/register_bus.h"
#include "drivers/phy/mdio_bus.h"
#include "kernel/lib/result.h"

// The MAC's MDIO master, clause 22 (docs/hardware/dwmac.md §2.3 "MDIO transaction"):
// wait for GB clear, (write: data into MDIO_DATA), start with PA | RDA | CR |
// GOC | GB, wait for GB clear, (read: take MDIO_DATA[15:0]). Each wait is
// bounded: a bus that never finishes is kTimedOut, not a hang.
namespace starling::dwmac {

class Mdio final : public phy::MdioBus {
 public:
  // One transaction takes 64 MDC cycles (~26 us at 2.5 MHz); 10 ms is a bus
  // that has stopped.
  static constexpr std::uint64_t kTimeoutNs = 10'000'000;

  Mdio() = default;
  // `clock_range` is the CR field (docs/hardware/dwmac.md §2.3: JH7110 U-Boot uses 5, 250-300 MHz).
  Mdio(mmio::Registers registers, std::uint32_t clock_range)
      : registers_(registers), clock_range_(clock_range & 0xF) {}

  Result<std::uint16_t> read(std::uint8_t phy, std::uint8_t reg) const override;
  Result<void> write(std::uint8_t phy, std::uint8_t reg, std::uint16_t value) const override;

  std::uint32_t clock_range() const { return clock_range_; }

 private:
  Result<void> wait_idle() const;
  std::uint32_t command(std::uint8_t phy, std::uint8_t reg, std::uint32_t op) const;

  mmio::Registers registers_;
  std::uint32_t clock_range_ = 5;
};

}  // namespace starling::dwmac

#endif  // STARLING_DRIVERS_DWMAC_MDIO_H_
