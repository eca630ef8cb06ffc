// Host test: FakeNic, which the netif's tests stand on, against
// kernel/hal/nic.h's contract (the typed suite the real drivers run), so a
// netif test cannot pass on behaviour no driver has.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "kernel/async/test_support.h"
#include "kernel/hal/nic_conformance.h"
#include "net/netif/fake_nic.h"

namespace starling::net::testing {
namespace {

class FakeNicRig : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  Result<void> start_nic() { return {}; }
  FakeNic& nic() { return nic_; }
  bool wire_in(std::span<const std::byte> frame) { return nic_.inject(frame); }
  std::vector<std::vector<std::byte>> wire_out() { return std::exchange(nic_.sent, {}); }
  // FakeNic has no ring: stalled, it takes nothing.
  void stall_tx(bool stalled) {
    nic_.busy = stalled;
    if (!stalled) nic_.kick();
  }
  Result<void> run(async::Task<void> task) { return executor_.block_on(std::move(task)); }

  FakeNic nic_;
};

}  // namespace
}  // namespace starling::net::testing

namespace starling::hal::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(FakeNic, NicConformance, net::testing::FakeNicRig);
}  // namespace starling::hal::testing
