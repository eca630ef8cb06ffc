// A NIC with only kernel/hal/nic.h's mandatory operations (no in-place TX,
// no checksum offload, no multicast filter: capabilities a driver may leave
// out) under the netif and UDP: a datagram echoed back goes out through
// transmit_gather with lwIP's own UDP checksum, and an unjoined multicast
// group is dropped by the netif's filter. The real drivers declare all
// three (static_asserts beside them); this is the third driver's start.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/nic.h"
#include "kernel/hal/nic_conformance.h"
#include "kernel/wire/checksum.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/netif/test_frames.h"
#include "net/udp/udp.h"

namespace starling::net {
namespace {

using testing::arp_reply;
using testing::Bytes;
using testing::FakeNic;
using testing::get16;
using testing::kOurIp;
using testing::kPeerIp;
using testing::pattern;
using testing::udp_frame;

class MinimalNic {
 public:
  std::size_t receive(std::span<hal::RxFrame> rx) { return fake.receive(rx); }
  Result<void> release(hal::RxHandle handle) { return fake.release(handle); }
  Result<void> release(std::span<const hal::RxHandle> handles) { return fake.release(handles); }
  Result<std::size_t> transmit(std::span<const std::span<const std::byte>> frames) {
    return fake.transmit(frames);
  }
  Result<void> transmit_gather(std::span<const hal::TxFragment> fragments) {
    return fake.transmit_gather(fragments);
  }
  hal::MacAddress mac() const { return fake.mac(); }
  hal::LinkState link() const { return fake.link(); }
  const hal::NicStats& stats() const { return fake.stats(); }
  async::Task<void> wait_for_work() { return fake.wait_for_work(); }

  FakeNic fake;
};

static_assert(hal::Nic<MinimalNic>);
static_assert(!hal::NicSendsInPlace<MinimalNic> && !hal::NicOffloadsTxChecksums<MinimalNic> &&
              !hal::NicFiltersMulticast<MinimalNic>);

class MinimalNicTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  MinimalNicTest() : RuntimeFixture(4 << 20) {}
};

// One test: lwIP is process-global and the netif is added once.
TEST_F(MinimalNicTest, TheNetifDoesWhatTheNicCannot) {
  static MinimalNic nic;
  static Netif<MinimalNic, 16> netif(nic);
  ASSERT_TRUE(netif.start(kQemuUserDefault).ok());
  auto body = [&]() -> async::Task<void> {
    async::Scope scope;
    (void)scope.spawn(netif.run());
    EXPECT_TRUE(nic.fake.inject(arp_reply()));
    UdpSocket socket;
    EXPECT_TRUE(socket.bind(1235).ok());
    co_await async::sleep_for(async::kMillisecond);

    // An echo of a datagram above the copy break (its payload is the NIC's
    // buffer): gathered, with the checksum lwIP computed.
    nic.fake.sent.clear();
    const std::uint64_t gathers_before = nic.fake.gathers;
    EXPECT_TRUE(nic.fake.inject(udp_frame(40002, 1235, pattern(600, 3))));
    auto d = co_await async::with_timeout(socket.receive_from(), async::kSecond);
    EXPECT_TRUE(d.ok());
    if (!d.ok()) co_return {};
    EXPECT_TRUE(socket.send_to(d->from, d->data).ok());
    EXPECT_EQ(nic.fake.sent.size(), 1u);
    if (nic.fake.sent.size() == 1) {
      const Bytes& f = nic.fake.sent[0];
      EXPECT_EQ(std::memcmp(f.data() + 42, pattern(600, 3).data(), 600), 0);
      EXPECT_NE(get16(f, 40), 0);  // a UDP checksum, not "none"
      const auto udp = std::span(f).subspan(34);
      EXPECT_EQ(wire::ones_complement_sum(
                    udp, wire::ipv4_pseudo_header_sum(kOurIp, kPeerIp, 17, udp.size())),
                0xFFFF);
    }
    EXPECT_EQ(nic.fake.gathers, gathers_before + 1);
    EXPECT_EQ(netif.stats().tx_in_place, 0u);
    EXPECT_EQ(nic.fake.stats().tx_in_place, 0u);
    d->data.reset();

    // A frame to a multicast group nobody joined: the NIC has no filter, the
    // netif's drops it before lwIP.
    Bytes group = udp_frame(40003, 1235, pattern(64, 5));
    const std::uint8_t unjoined[6] = {0x33, 0x33, 0x00, 0x00, 0x12, 0x34};
    for (int i = 0; i < 6; ++i) group[i] = static_cast<std::byte>(unjoined[i]);
    EXPECT_TRUE(nic.fake.inject(group));
    auto none = co_await async::with_timeout(socket.receive_from(), 50 * async::kMillisecond);
    EXPECT_FALSE(none.ok());
    EXPECT_EQ(nic.fake.with_stack(), 0u);
    scope.cancel();
    co_return {};
  };
  ASSERT_TRUE(executor_.block_on(body()).ok());
}

// The contract's suite on the minimal NIC: the in-place test is skipped.
class MinimalNicRig : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  Result<void> start_nic() { return {}; }
  MinimalNic& nic() { return nic_; }
  bool wire_in(std::span<const std::byte> frame) { return nic_.fake.inject(frame); }
  std::vector<std::vector<std::byte>> wire_out() { return std::exchange(nic_.fake.sent, {}); }
  void stall_tx(bool stalled) {
    nic_.fake.busy = stalled;
    if (!stalled) nic_.fake.kick();
  }
  Result<void> run(async::Task<void> task) { return executor_.block_on(std::move(task)); }

  MinimalNic nic_;
};

}  // namespace
}  // namespace starling::net

namespace starling::hal::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(MinimalNic, NicConformance, net::MinimalNicRig);
}  // namespace starling::hal::testing
