#ifndef STARLING_NET_TCP_TESTS_TCP_HARNESS_H_
#define STARLING_NET_TCP_TESTS_TCP_HARNESS_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/loopback.h"

namespace starling::net::testing {

inline constexpr Endpoint kServer(std::uint16_t port) {
  return {IpAddress::v4(ipv4(kLoopbackIp[0], kLoopbackIp[1], kLoopbackIp[2], kLoopbackIp[3])),
          port};
}

// Own frame arena and executor per test; lwIP (process-wide) pumped by a
// task while the body runs. After the body, lwIP runs a little longer so
// closes settle; then no connection slot and no frame may be left.
class TcpTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  TcpTest() : RuntimeFixture(std::size_t{64} << 20) { init_lwip_once(); }
  void TearDown() override {
    set_tcp_pool_limit_for_testing(0);
    EXPECT_EQ(tcp_stats().connections_in_use, 0u) << "a connection slot leaked";
  }
  ~TcpTest() override { flush_packets(); }

  static async::Task<void> harness(async::Task<void> body) noexcept {
    async::Scope scope;
    (void)scope.spawn(pump());
    Result<void> r = co_await async::with_timeout(std::move(body), 30 * async::kSecond);
    co_await async::sleep_for(20 * async::kMillisecond);  // let FINs/RSTs settle
    scope.cancel();
    co_return r;
  }
  Result<void> run(async::Task<void> body) {
    Result<void> r = executor_.block_on(harness(std::move(body)));
    return r;
  }
};

}  // namespace starling::net::testing

#endif  // STARLING_NET_TCP_TESTS_TCP_HARNESS_H_
