// TCP over the netif when the NIC's TX ring is full: lwIP keeps the segment
// the ring refused and must send it once there is room, without waiting for
// the peer (who is waiting for it). Without the netif's tcp_txnow() retry the
// echo of a request sat unsent until the peer's next segment: a soak test's
// long-lived connection timed out on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders and the rig

TEST(TcpTxBusyTest, ASegmentRefusedByAFullRingIsSentWhenRoomReturns) {
  NetifTestRig rig;
  Result<void> r = rig.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1400;
    constexpr std::uint16_t kPeerPort = 46000;
    FakeNic& nic = NetifTestRig::nic();
    auto listener = TcpListener::listen(kPort, 4);
    EXPECT_TRUE(listener.ok());
    nic.sent.clear();
    (void)co_await NetifTestRig::deliver(tcp_frame(kPeerPort, kPort, 1, 0, 2 /*SYN*/, {}, 1460));
    std::uint32_t cookie = 0;
    for (const Bytes& f : nic.sent) {
      if (f.size() >= 54 && get16(f, 36) == kPeerPort) cookie = get32(f, 38);
    }
    (void)co_await NetifTestRig::deliver(tcp_frame(kPeerPort, kPort, 2, cookie + 1, 16 /*ACK*/));
    auto stream = co_await async::with_timeout(listener->accept(), async::kSecond);
    EXPECT_TRUE(stream.ok());
    if (!stream.ok()) co_return {};
    // The ring is full while the reply is written: refused, kept by lwIP.
    nic.busy = true;
    nic.sent.clear();
    const Bytes reply = pattern(300, 4);
    auto w = co_await async::with_timeout(stream->write(reply), async::kSecond);
    EXPECT_TRUE(w.ok());
    EXPECT_TRUE(nic.sent.empty());
    const std::uint64_t retries = NetifTestRig::netif().stats().tx_retries;
    // Room again; the peer sends nothing. The segment must go out by itself.
    nic.busy = false;
    nic.kick();
    bool sent = false;
    for (int i = 0; i < 50 && !sent; ++i) {
      co_await async::sleep_for(async::kMillisecond);
      sent = std::any_of(nic.sent.begin(), nic.sent.end(), [&](const Bytes& f) {
        return f.size() == 54 + reply.size() && get16(f, 36) == kPeerPort &&
               std::equal(reply.begin(), reply.end(), f.begin() + 54);
      });
    }
    EXPECT_TRUE(sent) << "the refused segment waited for the peer";
    EXPECT_GT(NetifTestRig::netif().stats().tx_retries, retries);
    stream->abort();
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
