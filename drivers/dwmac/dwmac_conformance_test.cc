// Host test: the DWMAC driver against kernel/hal/nic.h's contract (the typed
// suite every hal::Nic runs), over the register-level device model.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "drivers/dwmac/dwmac_test_rig.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "kernel/hal/nic_conformance.h"

namespace starling::dwmac {
namespace {

class DwmacNicRig : public testing::DwmacRig {
 protected:
  // No self-test: its loopback frame is the driver's, not the contract's.
  Result<void> start_nic() { return start(testing::jh7110(), {.self_test = false}); }
  Dwmac& nic() { return driver_; }
  bool wire_in(std::span<const std::byte> frame) {
    return model_->receive_from_wire(frame) == model::DwmacModel::RxOutcome::kDelivered;
  }
  std::vector<std::vector<std::byte>> wire_out() { return std::exchange(sent_, {}); }
  void stall_tx(bool stalled) { model_->set_tx_stall(stalled); }
  Result<void> run(async::Task<void> task) { return executor_.block_on(std::move(task)); }
};

}  // namespace
}  // namespace starling::dwmac

namespace starling::hal::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Dwmac, NicConformance, dwmac::DwmacNicRig);
}  // namespace starling::hal::testing
