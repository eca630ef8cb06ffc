// SYN|ACKs to a host whose MAC we do not know yet wait for its ARP reply
// (lwIP's ARP_QUEUEING, ARP_QUEUE_LEN in net/lwip/lwipopts.h): found by the
// QEMU HTTP tail (issue 27, item 4). wrk opens 16 connections at once; with
// lwIP's default of 3 packets queued per unresolved address the first
// SYN|ACKs were dropped while the gateway's ARP reply was on its way, and
// those clients waited for lwIP's 3 s retransmission. Production lwIP and
// options, the netif over FakeNic, a listener from net/tcp.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "kernel/async/timeout.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders and the fake NIC

constexpr std::uint16_t kPort = 1238;
constexpr std::uint32_t kHostIp = 0x0A000207;  // 10.0.2.7: never seen before
constexpr test_frames::Mac kHostMac = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x07};
constexpr std::size_t kSyns = 12;  // more than opt.h's 3, fewer than our 16

std::uint32_t be32_at(const Bytes& f, std::size_t at) {
  return get32(f, at);
}

// ARP requests we sent for `ip`.
std::size_t arp_requests_for(std::uint32_t ip) {
  std::size_t n = 0;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    n += f.size() >= 42 && get16(f, 12) == 0x0806 && get16(f, 20) == 1 && be32_at(f, 38) == ip;
  }
  return n;
}

// SYN|ACKs we sent to `ip`.
std::size_t syn_acks_to(std::uint32_t ip) {
  std::size_t n = 0;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    n += f.size() >= 54 && get16(f, 12) == 0x0800 && be32_at(f, 30) == ip &&
         std::to_integer<int>(f[47]) == 0x12;
  }
  return n;
}

class ArpQueueTest : public ::testing::Test {
 protected:
  NetifTestRig rig_;
};

TEST_F(ArpQueueTest, SynAcksToAnUnresolvedHostWaitForItsArpReply) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    auto listener = TcpListener::listen(kPort, 16);
    EXPECT_TRUE(listener.ok());
    NetifTestRig::nic().sent.clear();
    const test_frames::Ethernet eth{.dst = kOurMac, .src = kHostMac};
    const test_frames::Ipv4 ip{.src = kHostIp, .dst = kOurIp};
    for (std::uint16_t i = 0; i < kSyns; ++i) {
      EXPECT_TRUE(co_await NetifTestRig::deliver(
          tcp_frame_from(eth, ip, static_cast<std::uint16_t>(50000 + i), kPort, 1000u * i, 0,
                         2 /*SYN*/, {}, 1460)));
    }
    (void)co_await NetifTestRig::settle();
    EXPECT_GE(arp_requests_for(kHostIp), 1u);
    EXPECT_EQ(syn_acks_to(kHostIp), 0u);  // all waiting for the MAC
    EXPECT_TRUE(co_await NetifTestRig::deliver(arp_reply_from(kHostMac, kHostIp)));
    (void)co_await NetifTestRig::settle();
    EXPECT_EQ(syn_acks_to(kHostIp), kSyns);  // every one, none dropped
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
