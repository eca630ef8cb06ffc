// Host test: the netif's checksum offload over FakeNic (whose TX offload
// is set here, before the process-global netif starts). TX: what the NIC
// says it computes, lwIP leaves out (the UDP checksum stays 0, the IPv4
// header checksum, which this NIC does not compute, is lwIP's). RX: a frame
// the NIC vouched for skips lwIP's UDP check; one it did not vouch for is
// checked, and a wrong checksum is dropped (never reaches the socket); a vouched-for fragment is
// still checked after reassembly.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lwip/udp.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"

namespace starling::net::testing {
namespace {

namespace tf = starling::test_frames;

constexpr std::uint16_t kPort = 7000;

class NetifChecksumTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { NetifTestRig::nic().tx_offload = {.udp = true, .tcp = true}; }
  void SetUp() override {
    rig_ = std::make_unique<NetifTestRig>();
    if (pcb_ == nullptr) {
      pcb_ = udp_new();
      ASSERT_EQ(udp_bind(pcb_, IP4_ADDR_ANY, kPort), ERR_OK);
      udp_recv(
          pcb_,
          [](void*, udp_pcb*, pbuf* p, const ip_addr_t*, u16_t) {
            ++received_;
            pbuf_free(p);
          },
          nullptr);
    }
  }

  // A datagram to kPort with its UDP checksum right, or off by one.
  static Bytes datagram(bool right_checksum, std::size_t n = 64) {
    auto frame =
        tf::udp_frame(kPeerToUs, kPeerToUsIp,
                      {.src_port = 4000, .dst_port = kPort, .checksum = true}, pattern(n, 3));
    if (!right_checksum) put16(frame, 40, static_cast<std::uint16_t>(get16(frame, 40) + 1));
    return frame;
  }

  // Injects frames (each vouched for or not) and returns how many datagrams
  // reached the socket.
  int deliver(const std::vector<std::pair<Bytes, bool>>& frames) {
    const int before = received_;
    auto r = rig_->run([&]() -> async::Task<void> {
      for (const auto& [frame, vouched] : frames) {
        (void)NetifTestRig::nic().inject(frame, vouched);
      }
      NetifTestRig::nic().kick();
      co_return co_await NetifTestRig::settle();
    }());
    EXPECT_TRUE(r.ok());
    return received_ - before;
  }

  std::unique_ptr<NetifTestRig> rig_;
  static inline udp_pcb* pcb_ = nullptr;
  static inline int received_ = 0;
};

TEST_F(NetifChecksumTest, LwipLeavesOutWhatTheNicComputes) {
  const std::uint16_t flags = NetifTestRig::netif().lwip_netif()->chksum_flags;
  EXPECT_EQ(flags & (NETIF_CHECKSUM_GEN_UDP | NETIF_CHECKSUM_GEN_TCP), 0);
  EXPECT_NE(flags & NETIF_CHECKSUM_GEN_IP, 0);
  EXPECT_NE(flags & (NETIF_CHECKSUM_CHECK_UDP | NETIF_CHECKSUM_CHECK_TCP),
            0);  // checks stay on outside input()
  auto& nic = NetifTestRig::nic();
  nic.sent.clear();
  auto r = rig_->run([&]() -> async::Task<void> {
    pbuf* p = pbuf_alloc(PBUF_TRANSPORT, 100, PBUF_RAM);
    ip_addr_t peer;
    ip_addr_set_ip4_u32(&peer, lwip_htonl(kPeerIp));
    EXPECT_EQ(udp_sendto(pcb_, p, &peer, 4000), ERR_OK);
    pbuf_free(p);
    co_return co_await NetifTestRig::settle();
  }());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(nic.sent.size(), 1u);
  const auto& frame = nic.sent[0];
  EXPECT_EQ(get16(frame, 40), 0u) << "UDP checksum left to the NIC";
  EXPECT_EQ(tf::ones_complement_sum(std::span(frame).subspan(14, 20)), 0xFFFFu)
      << "IPv4 header checksum computed by lwIP";
}

TEST_F(NetifChecksumTest, UnvouchedFramesAreCheckedAndBadOnesDropped) {
  EXPECT_EQ(deliver({{datagram(true), false}}), 1);
  EXPECT_EQ(deliver({{datagram(false), false}}), 0);
}

TEST_F(NetifChecksumTest, VouchedFramesAreNotCheckedAgain) {
  const auto trusted = NetifTestRig::netif().stats().rx_checksum_trusted;
  // Wrong on purpose: delivered all the same, so lwIP did not look.
  EXPECT_EQ(deliver({{datagram(false), true}}), 1);
  EXPECT_EQ(NetifTestRig::netif().stats().rx_checksum_trusted, trusted + 1);
  // And the netif's flags are back: the next unvouched bad frame is dropped.
  EXPECT_EQ(deliver({{datagram(false), false}}), 0);
}

TEST_F(NetifChecksumTest, VouchedFragmentsAreCheckedAfterReassembly) {
  // One 1,000-byte datagram with a wrong checksum, in two fragments the NIC
  // "vouched" for: reassembled, checked, dropped.
  auto whole = datagram(false, 1000);
  const std::size_t l4 = whole.size() - 34;  // UDP header + payload
  const std::size_t first = 504;             // a multiple of 8
  Bytes a(34 + first), b(34 + l4 - first);
  std::copy(whole.begin(), whole.begin() + 34 + first, a.begin());
  std::copy(whole.begin(), whole.begin() + 34, b.begin());
  std::copy(whole.begin() + 34 + first, whole.end(), b.begin() + 34);
  const tf::Ipv4 ip{.src = kPeerIp, .dst = kOurIp, .id = 77};
  tf::write_ipv4_headers(a, ip, tf::kProtocolUdp);
  tf::write_ipv4_headers(b, ip, tf::kProtocolUdp);
  put16(a, 20, 0x2000);  // MF
  put16(b, 20, static_cast<std::uint16_t>(first / 8));
  for (Bytes* f : {&a, &b}) {  // the header checksum again, over the new flags
    put16(*f, 24, 0);
    put16(*f, 24, tf::internet_checksum(std::span(*f).subspan(14, 20)));
  }
  EXPECT_EQ(deliver({{a, true}, {b, true}}), 0);
}

}  // namespace
}  // namespace starling::net::testing
