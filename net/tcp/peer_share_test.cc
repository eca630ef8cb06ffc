// One peer's share of received pbufs (net/tcp/peer_share.cc) seen from the
// wire: production lwIP and options, the netif over FakeNic, a listener from
// net/tcp, and the peer's segments written by hand, so that exactly which
// segment arrives while the share is full is the test's to say.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "kernel/async/timeout.h"
#include "lwip/priv/tcp_priv.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/raw_peer.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders, the rig and the raw peer

class PeerShareTest : public ::testing::Test {
 protected:
  NetifTestRig rig_;
};

// Issue 47: a peer's connection A holds the whole share unread; its
// connection B holds a segment unread too. B's next segment in order (the
// one at its window's left edge) is admitted: refused, it came back only
// after the peer's retransmission timeouts, doubling each time (4.4 s gaps
// at the 8% setting). A segment of B's out of order is still refused: that
// is what the share holds back; and so is B's next in order once B holds
// its window's floor (two), which bounds what the rule lets past the share.
TEST_F(PeerShareTest, TheSegmentAtALeftEdgeIsTakenWhileItsConnectionHoldsLittle) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1401;
    constexpr std::size_t kShare = 4;
    const std::size_t share_before = tcp_peer_rx_pbufs();
    set_tcp_peer_rx_pbufs(kShare);
    auto listener = TcpListener::listen(kPort, 4);
    EXPECT_TRUE(listener.ok());
    if (!listener.ok()) co_return {};
    auto a = co_await connect_with_sack(*listener, kPort, 46001);
    auto b = co_await connect_with_sack(*listener, kPort, 46002);
    EXPECT_TRUE(a.ok() && b.ok());
    if (!a.ok() || !b.ok()) co_return {};
    const auto data = [](std::uint16_t peer_port, const SackPeer& to, std::uint32_t offset) {
      return tcp_frame(peer_port, kPort, kPeerSeq + offset, to.first, 16 | 8, pattern(100, offset));
    };
    for (std::uint32_t i = 0; i < kShare; ++i) {  // A: the share, unread
      (void)co_await NetifTestRig::deliver(data(46001, *a, 100 * i));
    }
    EXPECT_EQ(a->pcb->rcv_nxt, kPeerSeq + 100 * kShare);
    (void)co_await NetifTestRig::deliver(data(46002, *b, 0));  // B held nothing: taken
    EXPECT_EQ(b->pcb->rcv_nxt, kPeerSeq + 100);
    const TcpStats before = tcp_stats();
    // Out of order (a hole at 100): held back by the share.
    (void)co_await NetifTestRig::deliver(data(46002, *b, 200));
    EXPECT_EQ(tcp_stats().refused_peer_data, before.refused_peer_data + 1)
        << "out-of-order data past the share was not refused";
    // At the left edge: taken, the peer's share or not.
    (void)co_await NetifTestRig::deliver(data(46002, *b, 100));
    EXPECT_EQ(b->pcb->rcv_nxt, kPeerSeq + 200)
        << "the segment that lets the connection advance was refused";
    EXPECT_EQ(tcp_stats().refused_peer_data, before.refused_peer_data + 1);
    // B now holds two unread: its next segment in order waits for its reader.
    (void)co_await NetifTestRig::deliver(data(46002, *b, 200));
    EXPECT_EQ(b->pcb->rcv_nxt, kPeerSeq + 200)
        << "a connection held more than its floor past the share";
    EXPECT_EQ(tcp_stats().refused_peer_data, before.refused_peer_data + 2);
    a->stream.abort();
    b->stream.abort();
    set_tcp_peer_rx_pbufs(share_before);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
