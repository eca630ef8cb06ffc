// Faults at the NIC, seen through the netif, lwIP and a UDP socket (issue
// 7): a TX ring that stays full, link flaps, and an RX flood while the
// application reads nothing. Each case: the failure is an error value and a
// counter, the service works again afterwards, and no RX wrapper, NIC
// buffer or lwIP pool entry is left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "lwip/memp.h"
#include "lwip/netif.h"
#include "lwip/stats.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/netif/test_frames.h"
#include "net/udp/udp.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders and the fake NIC

constexpr std::size_t kRxWrappers = 16;

FakeNic g_nic;
Netif<FakeNic, kRxWrappers> g_netif(g_nic);

struct PoolCounts {
  std::array<std::size_t, MEMP_MAX> memp{};
  std::size_t heap = 0;
  std::size_t rx_wrappers = 0;
  std::size_t nic_buffers_with_stack = 0;
  bool operator==(const PoolCounts&) const = default;
};

PoolCounts pool_counts() {
  PoolCounts c;
  for (int i = 0; i < MEMP_MAX; ++i) c.memp[i] = lwip_stats.memp[i]->used;
  c.heap = lwip_stats.mem.used;
  c.rx_wrappers = g_netif.rx_pool().in_use();
  c.nic_buffers_with_stack = g_nic.with_stack();
  return c;
}

bool sent_udp(std::uint16_t from, std::uint16_t to, const Bytes& payload) {
  return std::any_of(g_nic.sent.begin(), g_nic.sent.end(), [&](const Bytes& f) {
    return f.size() == 42 + payload.size() && get16(f, 12) == 0x0800 && get16(f, 34) == from &&
           get16(f, 36) == to && std::equal(f.begin() + 42, f.end(), payload.begin());
  });
}

async::Task<void> settle() {
  for (int i = 0; i < 5; ++i) co_await async::sleep_for(async::kMillisecond);
  co_return {};
}

class NetifFaultTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  NetifFaultTest() : RuntimeFixture(std::size_t{4} << 20) {
    static bool started = false;
    if (!started) {
      started = true;
      EXPECT_TRUE(g_netif.start(kQemuUserDefault).ok());
    }
    g_nic.busy = false;
    g_nic.link_state = hal::LinkState::kUp;
  }

  // Runs body beside the netif, with the peer's MAC known.
  Result<void> run(async::Task<void> body) {
    auto harness = [](async::Task<void> body) -> async::Task<void> {
      async::Scope scope;
      if (Result<void> r = scope.spawn(g_netif.run()); !r) co_return r;
      (void)g_nic.inject(arp_reply());
      g_nic.kick();
      (void)co_await settle();
      Result<void> r = co_await async::with_timeout(std::move(body), 5 * async::kSecond);
      scope.cancel();
      co_return r;
    };
    return executor_.block_on(harness(std::move(body)));
  }
};

// The TX ring stays full: every send is kBusy to the application and
// counted by the netif and the NIC; once the ring drains, sends go out.
TEST_F(NetifFaultTest, FullTxRingIsBusyAndCountedThenRecovers) {
  Result<void> r = run([]() -> async::Task<void> {
    UdpSocket socket;
    EXPECT_TRUE(socket.bind(3001).ok());
    (void)co_await settle();
    const PoolCounts baseline = pool_counts();
    const std::uint64_t drops = g_netif.stats().tx_busy_drops;
    const std::uint64_t nic_busy = g_nic.stats().tx_busy;
    g_nic.busy = true;
    constexpr int kTries = 50;
    for (int i = 0; i < kTries; ++i) {
      Result<void> s = socket.send_to({IpAddress::v4(kPeerIp), 4001}, pattern(100 + i, i));
      EXPECT_FALSE(s.ok());
      if (!s.ok()) EXPECT_EQ(s.error(), Error::kBusy);
    }
    EXPECT_EQ(g_netif.stats().tx_busy_drops - drops, std::uint64_t{kTries});
    EXPECT_EQ(g_nic.stats().tx_busy - nic_busy, std::uint64_t{kTries});
    EXPECT_EQ(pool_counts(), baseline) << "a refused frame kept a pbuf";
    g_nic.busy = false;
    g_nic.sent.clear();
    const Bytes out = pattern(700, 9);
    EXPECT_TRUE(socket.send_to({IpAddress::v4(kPeerIp), 4001}, out).ok());
    EXPECT_TRUE(sent_udp(3001, 4001, out));
    (void)co_await settle();
    EXPECT_EQ(pool_counts(), baseline);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// The link flaps: the netif follows the NIC's state into lwIP (sends fail
// while it is down), and serves again each time it comes back.
TEST_F(NetifFaultTest, LinkFlapsAreFollowedAndTrafficResumes) {
  Result<void> r = run([]() -> async::Task<void> {
    UdpSocket socket;
    EXPECT_TRUE(socket.bind(3002).ok());
    (void)co_await settle();
    const PoolCounts baseline = pool_counts();
    for (std::uint32_t flap = 0; flap < 10; ++flap) {
      g_nic.link_state = hal::LinkState::kDown;
      g_nic.kick();
      (void)co_await settle();
      EXPECT_FALSE(netif_is_link_up(g_netif.lwip_netif())) << "flap " << flap;
      g_nic.sent.clear();
      EXPECT_FALSE(socket.send_to({IpAddress::v4(kPeerIp), 4002}, pattern(64, flap)).ok())
          << "flap " << flap;
      EXPECT_TRUE(g_nic.sent.empty()) << "a frame went out on a down link";

      g_nic.link_state = hal::LinkState::kUp;
      g_nic.kick();
      (void)co_await settle();
      EXPECT_TRUE(netif_is_link_up(g_netif.lwip_netif())) << "flap " << flap;
      (void)g_nic.inject(arp_reply());  // in case the cache was flushed
      g_nic.kick();
      (void)co_await settle();
      g_nic.sent.clear();
      const Bytes out = pattern(200, flap + 100);
      EXPECT_TRUE(socket.send_to({IpAddress::v4(kPeerIp), 4002}, out).ok()) << "flap " << flap;
      for (int i = 0; i < 50 && !sent_udp(3002, 4002, out); ++i) {
        co_await async::sleep_for(async::kMillisecond);
      }
      EXPECT_TRUE(sent_udp(3002, 4002, out)) << "flap " << flap;
      // an echo in: the RX side works too
      g_nic.inject(udp_frame(5002, 3002, pattern(32, flap)));
      g_nic.kick();
      auto d = co_await async::with_timeout(socket.receive_from(), async::kSecond);
      EXPECT_TRUE(d.ok()) << "flap " << flap;
    }
    (void)co_await settle();
    EXPECT_EQ(pool_counts(), baseline);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// More frames than RX wrappers while the application reads nothing: the
// excess is dropped and counted at once (the NIC gets its buffers back), the
// queued datagrams are intact, and once they are read every wrapper and
// NIC buffer is free again.
TEST_F(NetifFaultTest, RxFloodWhileTheAppReadsNothing) {
  Result<void> r = run([]() -> async::Task<void> {
    UdpSocket socket;
    EXPECT_TRUE(socket.bind(3003).ok());
    (void)co_await settle();
    const PoolCounts baseline = pool_counts();
    const std::uint64_t exhausted = g_netif.rx_pool().stats().exhausted;
    std::uint32_t injected = 0;
    for (std::uint32_t i = 0; i < FakeNic::kBuffers; ++i) {
      injected += g_nic.inject(udp_frame(5003, 3003, pattern(64, i))) ? 1 : 0;
    }
    g_nic.kick();
    (void)co_await settle();
    EXPECT_EQ(injected, FakeNic::kBuffers);
    EXPECT_LE(g_netif.rx_pool().in_use(), kRxWrappers);
    EXPECT_LE(g_nic.with_stack(), kRxWrappers);
    const std::size_t queued = socket.queued();
    EXPECT_EQ(g_netif.rx_pool().stats().exhausted - exhausted, FakeNic::kBuffers - queued);
    EXPECT_GT(queued, 0u);
    // The queued ones are the first ones, in order and intact.
    for (std::uint32_t i = 0; i < queued; ++i) {
      Result<Datagram> d = socket.try_receive_from();
      EXPECT_TRUE(d.ok());
      if (!d.ok()) break;
      const Bytes want = pattern(64, i);
      auto bytes = d->data.contiguous();
      EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), want.begin(), want.end())) << i;
    }
    (void)co_await settle();
    EXPECT_EQ(pool_counts(), baseline) << "wrappers or NIC buffers still held";
    // and the next datagram gets through
    g_nic.inject(udp_frame(5003, 3003, pattern(80, 77)));
    g_nic.kick();
    auto d = co_await async::with_timeout(socket.receive_from(), async::kSecond);
    EXPECT_TRUE(d.ok());
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
