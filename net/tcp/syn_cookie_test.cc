// SYN cookies (net/lwip/patches/0001-tcp-syn-cookies.patch) seen from the
// wire: production lwIP and options, the netif over FakeNic, a listener
// from net/tcp, TCP segments built by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernel/async/timeout.h"
#include "lwip/memp.h"
#include "lwip/stats.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders and the fake NIC

constexpr std::uint16_t kPort = 1236;
constexpr std::uint8_t kSyn = 2, kRst = 4, kAck = 16;

FakeNic& g_nic = NetifTestRig::nic();

std::size_t pcbs_in_use() {
  return lwip_stats.memp[MEMP_TCP_PCB]->used;
}

struct Segment {
  std::uint32_t seq, ack;
  std::uint8_t flags;
  std::uint16_t mss;  // 0: no option
};

// The last TCP segment we sent to `peer_port`, if any.
std::optional<Segment> last_to(std::uint16_t peer_port) {
  for (auto it = g_nic.sent.rbegin(); it != g_nic.sent.rend(); ++it) {
    const Bytes& f = *it;
    if (f.size() < 54 || get16(f, 12) != 0x0800 || std::to_integer<int>(f[23]) != 6) continue;
    if (get16(f, 36) != peer_port) continue;
    const std::size_t header = (std::to_integer<unsigned>(f[46]) >> 4) * 4;
    std::uint16_t mss = 0;
    if (header >= 24 && std::to_integer<int>(f[54]) == 2) mss = get16(f, 56);
    return Segment{get32(f, 38), get32(f, 42), std::to_integer<std::uint8_t>(f[47]), mss};
  }
  return std::nullopt;
}

async::Task<void> settle() {
  return NetifTestRig::settle();
}

class SynCookieTest : public ::testing::Test {
 protected:
  Result<void> run(async::Task<void> body) { return rig_.run(std::move(body)); }
  NetifTestRig rig_;
};

// Half-open connections until the threshold: SYNs from this many fresh ports.
async::Task<void> fill_half_open(std::uint16_t port, std::uint16_t first_peer_port) {
  for (std::uint16_t i = 0; i < LWIP_TCP_SYN_COOKIE_THRESHOLD; ++i) {
    EXPECT_TRUE(g_nic.inject(tcp_frame(first_peer_port + i, port, 100u + i, 0, kSyn)));
  }
  g_nic.kick();
  co_return co_await settle();
}

// Below the threshold a SYN gets a PCB and an RFC 6528 ISN (monotonic for a
// 4-tuple, which peers reusing ports in TIME_WAIT rely on); a flood holds at
// most LWIP_TCP_SYN_COOKIE_THRESHOLD PCBs, and past it every SYN is answered
// with a cookie SYN|ACK (MSS option included) that holds nothing, the same
// cookie for the same SYN.
TEST_F(SynCookieTest, AFloodHoldsAtMostTheThresholdThenCookies) {
  Result<void> r = run([]() -> async::Task<void> {
    auto listener = TcpListener::listen(kPort, 4);
    EXPECT_TRUE(listener.ok());
    (void)co_await settle();
    const std::size_t before = pcbs_in_use();
    EXPECT_TRUE(g_nic.inject(tcp_frame(39000, kPort, 500, 0, kSyn, {}, 1460)));
    g_nic.kick();
    (void)co_await settle();
    EXPECT_EQ(pcbs_in_use(), before + 1);  // the ordinary path: a half-open PCB
    for (std::uint16_t port = 41000; port < 41000 + 3 * MEMP_NUM_TCP_PCB; ++port) {
      EXPECT_TRUE(g_nic.inject(tcp_frame(port, kPort, port * 7u, 0, kSyn)));
      if (port % 8 == 0) {
        g_nic.kick();
        (void)co_await settle();
      }
    }
    g_nic.kick();
    (void)co_await settle();
    EXPECT_EQ(pcbs_in_use(), before + LWIP_TCP_SYN_COOKIE_THRESHOLD);
    EXPECT_EQ(tcp_stats().refused_pool, 0u);
    g_nic.sent.clear();
    EXPECT_TRUE(g_nic.inject(tcp_frame(40000, kPort, 1000, 0, kSyn, {}, 1460)));
    g_nic.kick();
    (void)co_await settle();
    auto synack = last_to(40000);
    EXPECT_TRUE(synack.has_value());
    if (!synack) co_return {};
    EXPECT_EQ(synack->flags, kSyn | kAck);
    EXPECT_EQ(synack->ack, 1001u);
    EXPECT_EQ(synack->mss, TCP_MSS);
    EXPECT_EQ(pcbs_in_use(), before + LWIP_TCP_SYN_COOKIE_THRESHOLD);
    EXPECT_TRUE(g_nic.inject(tcp_frame(40000, kPort, 1000, 0, kSyn, {}, 1460)));
    g_nic.kick();
    (void)co_await settle();
    EXPECT_EQ(last_to(40000)->seq, synack->seq);  // stateless, and stable within a period
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// Under pressure, the final ACK with the cookie opens the connection
// (accept() gets it, data in that ACK included); an ACK with a forged cookie
// gets an RST, no PCB.
TEST_F(SynCookieTest, OnlyAValidCookieOpensAConnection) {
  Result<void> r = run([]() -> async::Task<void> {
    auto listener = TcpListener::listen(kPort + 1, 4);
    EXPECT_TRUE(listener.ok());
    (void)co_await fill_half_open(kPort + 1, 43000);  // cookies from here on
    const std::size_t before = pcbs_in_use();
    const std::uint64_t accepted = tcp_stats().accepted;
    // Forged: an ACK to the listener with a made-up cookie.
    g_nic.sent.clear();
    EXPECT_TRUE(g_nic.inject(tcp_frame(42000, kPort + 1, 5001, 0x12345678, kAck)));
    g_nic.kick();
    (void)co_await settle();
    auto rst = last_to(42000);
    EXPECT_TRUE(rst.has_value() && (rst->flags & kRst) != 0);
    EXPECT_EQ(pcbs_in_use(), before);
    EXPECT_EQ(tcp_stats().accepted, accepted);
    // Real: SYN, SYN|ACK, then a cookie off by one bit is refused too ...
    EXPECT_TRUE(g_nic.inject(tcp_frame(42001, kPort + 1, 7000, 0, kSyn, {}, 1220)));
    g_nic.kick();
    (void)co_await settle();
    auto synack = last_to(42001);
    EXPECT_TRUE(synack.has_value());
    if (!synack) co_return {};
    EXPECT_TRUE(g_nic.inject(tcp_frame(42001, kPort + 1, 7001, (synack->seq ^ 0x10) + 1, kAck)));
    g_nic.kick();
    (void)co_await settle();
    EXPECT_EQ(pcbs_in_use(), before);
    EXPECT_NE(last_to(42001)->flags & kRst, 0);
    // ... and the right one, with data, is a connection.
    const Bytes hello = pattern(100, 5);
    EXPECT_TRUE(g_nic.inject(tcp_frame(42001, kPort + 1, 7001, synack->seq + 1, kAck, hello)));
    g_nic.kick();
    auto stream = co_await async::with_timeout(listener->accept(), async::kSecond);
    EXPECT_TRUE(stream.ok());
    if (!stream.ok()) co_return {};
    EXPECT_EQ(pcbs_in_use(), before + 1);
    std::byte buf[200];
    auto n = co_await async::with_timeout(stream->read(buf), async::kSecond);
    EXPECT_TRUE(n.ok());
    if (n.ok()) {
      EXPECT_EQ(*n, hello.size());
      EXPECT_TRUE(std::equal(hello.begin(), hello.end(), buf));
    }
    // Our send MSS is the cookie's: 1220 from the SYN's option.
    g_nic.sent.clear();
    const Bytes big = pattern(3000, 1);
    auto w = co_await async::with_timeout(stream->write(big), async::kSecond);
    EXPECT_TRUE(w.ok());
    std::size_t largest = 0;
    for (const Bytes& f : g_nic.sent) {
      if (f.size() > 54 && get16(f, 36) == 42001) largest = std::max(largest, f.size() - 54);
    }
    EXPECT_EQ(largest, 1220u);
    stream->abort();
    (void)co_await settle();
    EXPECT_EQ(pcbs_in_use(), before);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
