#ifndef STARLING_NET_NETIF_TEST_RIG_H_
#define STARLING_NET_NETIF_TEST_RIG_H_

#include <cstddef>
#include <utility>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/lib/result.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/netif/test_frames.h"

// Test support: production lwIP (net/lwip/lwipopts.h) on one netif over
// FakeNic at kQemuUserDefault's address, the peer's MAC already known, and a
// way to run a test body as a task beside the netif's run().
//
//   NetifTestRig rig;
//   auto r = rig.run([&]() -> async::Task<void> { ...; co_return {}; }());
//
// lwIP is process-global, so the NIC and netif are too (started once).
namespace starling::net::testing {

// The runtime is a private base: tests reach it only through run().
class NetifTestRig : private async::testing::RuntimeFixture {
 public:
  using TestNetif = Netif<FakeNic, 16>;

  NetifTestRig() : RuntimeFixture(std::size_t{4} << 20) {
    static bool started = false;
    if (!started) {
      started = true;
      (void)netif().start(kQemuUserDefault);
    }
  }

  static FakeNic& nic() {
    static FakeNic nic;
    return nic;
  }
  static TestNetif& netif() {
    static TestNetif netif(nic());
    return netif;
  }

  // Runs `body` (bounded to 5 s) beside the netif.
  Result<void> run(async::Task<void> body) {
    auto harness = [](async::Task<void> body) -> async::Task<void> {
      async::Scope scope;
      if (Result<void> r = scope.spawn(netif().run()); !r) co_return r;
      (void)nic().inject(arp_reply());
      nic().kick();
      (void)co_await settle();
      Result<void> r = co_await async::with_timeout(std::move(body), 5 * async::kSecond);
      scope.cancel();
      co_return r;
    };
    return executor_.block_on(harness(std::move(body)));
  }

  // A few milliseconds for the netif to take what was injected.
  static async::Task<void> settle() {
    for (int i = 0; i < 5; ++i) co_await async::sleep_for(async::kMillisecond);
    co_return {};
  }

  // Injects a frame and lets the netif take it.
  static async::Task<void> deliver(const Bytes& frame) {
    (void)nic().inject(frame);
    nic().kick();
    co_return co_await settle();
  }
};

}  // namespace starling::net::testing

#endif  // STARLING_NET_NETIF_TEST_RIG_H_
