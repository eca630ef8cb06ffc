#include "drivers/dwmac/mdio.h"

#include "drivers/dwmac/registers.h"
#include "drivers/mmio/poll_deadline.h"

namespace starling::dwmac {

using namespace reg::mdio_address;

Result<void> Mdio::wait_idle() const {
  mmio::PollDeadline deadline(kTimeoutNs);
  for (;;) {
    if ((registers_.read(reg::kMacMdioAddress) & kGb) == 0) return {};
    if (deadline.passed()) return Unexpected(Error::kTimedOut);
  }
}

std::uint32_t Mdio::command(std::uint8_t phy, std::uint8_t reg, std::uint32_t op) const {
  return (std::uint32_t{phy} & 0x1F) << kPaShift | (std::uint32_t{reg} & 0x1F) << kRdaShift |
         clock_range_ << kCrShift | op << kGocShift | kGb;
}

Result<std::uint16_t> Mdio::read(std::uint8_t phy, std::uint8_t reg) const {
  if (auto ok = wait_idle(); !ok.ok()) return Unexpected(ok.error());
  registers_.write(reg::kMacMdioAddress, command(phy, reg, kGocRead));
  if (auto ok = wait_idle(); !ok.ok()) return Unexpected(ok.error());
  return static_cast<std::uint16_t>(registers_.read(reg::kMacMdioData) & 0xFFFF);
}

Result<void> Mdio::write(std::uint8_t phy, std::uint8_t reg, std::uint16_t value) const {
  if (auto ok = wait_idle(); !ok.ok()) return ok;
  registers_.write(reg::kMacMdioData, value);
  registers_.write(reg::kMacMdioAddress, command(phy, reg, kGocWrite));
  return wait_idle();
}

}  // namespace starling::dwmac
