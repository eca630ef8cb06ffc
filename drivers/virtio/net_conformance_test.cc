// Host test: virtio-net against kernel/hal/nic.h's contract (the typed
// suite every hal::Nic runs), over the virtio-mmio device model.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "drivers/virtio/net_test_rig.h"
#include "kernel/hal/nic_conformance.h"

namespace starling::virtio {
namespace {

class VirtioNetRig : public testing::NetRig {
 protected:
  Result<void> start_nic() { return init(); }
  Net& nic() { return net_; }
  bool wire_in(std::span<const std::byte> frame) { return device_.deliver(frame); }
  std::vector<std::vector<std::byte>> wire_out() { return std::exchange(device_.transmitted, {}); }
  void stall_tx(bool stalled) {
    device_.consume_tx_on_notify = !stalled;
    if (!stalled) device_.consume_tx();
  }
  Result<void> run(async::Task<void> task) { return executor_.block_on(std::move(task)); }
};

}  // namespace
}  // namespace starling::virtio

namespace starling::hal::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(VirtioNet, NicConformance, virtio::VirtioNetRig);
}  // namespace starling::hal::testing
