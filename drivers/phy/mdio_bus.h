#ifndef STARLING_DRIVERS_PHY_MDIO_BUS_H_
#define STARLING_DRIVERS_PHY_MDIO_BUS_H_

#include <cstdint>

#include "kernel/lib/result.h"

namespace starling::phy {

// The clause-22 management bus a PHY sits on: on the Star64 the DWMAC's
// MDIO master (dwmac::Mdio); on another board whatever reads and writes a
// PHY register. A PHY driver needs nothing else from the MAC, so it lives
// apart from it (drivers/phy), as Linux's and Zephyr's PHY drivers do. One
// virtual call per register access: MDIO is a slow path (~26 us a
// transaction), never per packet.
class MdioBus {
 public:
  virtual Result<std::uint16_t> read(std::uint8_t phy, std::uint8_t reg) const = 0;
  virtual Result<void> write(std::uint8_t phy, std::uint8_t reg, std::uint16_t value) const = 0;

 protected:
  MdioBus() = default;
  MdioBus(const MdioBus&) = default;
  MdioBus& operator=(const MdioBus&) = default;
  ~MdioBus() = default;
};

}  // namespace starling::phy

#endif  // STARLING_DRIVERS_PHY_MDIO_BUS_H_
