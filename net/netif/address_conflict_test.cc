// Address conflict detection (address_conflict.h) through the netif over a
// fake NIC: another host answering for the static address is a conflict,
// printed, counted and shown until a probe finds the address free; a DHCP
// lease declined for a conflict is counted and the DHCP client still
// declines it.
#include "net/netif/address_conflict.h"

#include <gtest/gtest.h>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "lwip/acd.h"
#include "lwip/dhcp.h"
#include "lwip/prot/dhcp.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/netif/test_frames.h"

namespace starling::net {
namespace {

using testing::arp_reply_from;
using testing::FakeNic;
using testing::get16;
using testing::kOurIp;

class AddressConflictTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  AddressConflictTest() : RuntimeFixture(4 << 20) {}
};

// The ARP frames the netif sent: (sender IP, target IP) of each request.
struct ArpSeen {
  std::size_t probes = 0;  // sender 0.0.0.0, target our address (RFC 5227 probe)
};

ArpSeen arp_seen(const FakeNic& nic) {
  ArpSeen seen;
  for (const auto& f : nic.sent) {
    if (f.size() < 42 || get16(f, 12) != 0x0806) continue;
    if (test_frames::get32(f, 28) == 0 && test_frames::get32(f, 38) == kOurIp) ++seen.probes;
  }
  return seen;
}

// One test: lwIP is process-global and the netif is added once.
TEST_F(AddressConflictTest, ConflictsAreReportedAndTheStaticAddressKept) {
  static FakeNic nic;
  static Netif<FakeNic, 16> netif(nic);
  ASSERT_TRUE(netif.start(kQemuUserDefault).ok());
  const AddressConflictStats& stats = address_conflict_stats();

  auto body = [&]() -> async::Task<void> {
    async::Scope scope;
    (void)scope.spawn(netif.run());
    // 1. The link came up with a static address: lwIP probes it (the
    // first probe within PROBE_WAIT, 1 s).
    for (int i = 0; i < 150 && arp_seen(nic).probes == 0; ++i)
      co_await async::sleep_for(10 * async::kMillisecond);
    EXPECT_GE(arp_seen(nic).probes, 1u);
    EXPECT_EQ(stats.conflicts, 0u);
    EXPECT_FALSE(stats.in_conflict);

    // 2. Another host answers for it: a conflict, the address kept.
    constexpr test_frames::Mac kOther = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x77};
    EXPECT_TRUE(nic.inject(arp_reply_from(kOther, kOurIp)));
    for (int i = 0; i < 100 && stats.conflicts == 0; ++i)
      co_await async::sleep_for(async::kMillisecond);
    EXPECT_EQ(stats.conflicts, 1u);
    EXPECT_TRUE(stats.in_conflict);
    EXPECT_EQ(stats.address, kOurIp);
    EXPECT_EQ(netif.address(), kOurIp);

    // 3. Probing starts again; with no answer this time, the address is
    // found free (3 probes 1-2 s apart, 2 announcements: at most ~9 s).
    nic.sent.clear();
    for (int i = 0; i < 1200 && stats.in_conflict; ++i)
      co_await async::sleep_for(10 * async::kMillisecond);
    EXPECT_FALSE(stats.in_conflict);
    EXPECT_GE(stats.checked, 1u);
    EXPECT_GE(arp_seen(nic).probes, 3u);

    // 4. Claimed later (an ARP from another host with our address as its
    // sender): a conflict, with the other host's hardware address; probed
    // again, and free again once nobody answers.
    EXPECT_TRUE(nic.inject(arp_reply_from(kOther, kOurIp)));
    for (int i = 0; i < 100 && stats.conflicts == 1; ++i)
      co_await async::sleep_for(async::kMillisecond);
    EXPECT_EQ(stats.conflicts, 2u);
    EXPECT_TRUE(stats.in_conflict);
    EXPECT_EQ(stats.claimed_by.bytes[5], 0x77);
    EXPECT_EQ(netif.address(), kOurIp);
    for (int i = 0; i < 1200 && stats.in_conflict; ++i)
      co_await async::sleep_for(10 * async::kMillisecond);
    EXPECT_FALSE(stats.in_conflict);
    EXPECT_GE(stats.checked, 2u);

    // 5. DHCP: the client's conflict callback is wrapped; a decline is
    // counted and still reaches the client, which sends DHCPDECLINE
    // (option 53 = 4) to the server port.
    EXPECT_EQ(dhcp_start(netif.lwip_netif()), ERR_OK);
    report_dhcp_conflicts(netif.lwip_netif());
    report_dhcp_conflicts(netif.lwip_netif());  // twice: wrapped once
    nic.sent.clear();
    struct dhcp* dhcp = netif_dhcp_data(netif.lwip_netif());
    EXPECT_NE(dhcp, nullptr);
    if (dhcp != nullptr) dhcp->acd.acd_conflict_callback(netif.lwip_netif(), ACD_DECLINE);
    EXPECT_EQ(stats.dhcp_declines, 1u);
    EXPECT_EQ(stats.conflicts, 2u);  // bound address: the ARP frames count, not the decline
    bool declined = false;
    for (const auto& f : nic.sent) {
      if (f.size() < 42 + 240 || get16(f, 12) != 0x0800 || get16(f, 36) != 67) continue;
      // Options after the 236-byte BOOTP header and the 4-byte cookie.
      for (std::size_t at = 42 + 240; at + 2 < f.size() && f[at] != std::byte{255};) {
        if (f[at] == std::byte{0}) {
          ++at;
          continue;
        }
        if (f[at] == std::byte{53} && f[at + 2] == std::byte{4}) declined = true;
        at += 2 + static_cast<std::size_t>(f[at + 1]);
      }
    }
    EXPECT_TRUE(declined);
    dhcp_stop(netif.lwip_netif());
    scope.cancel();
    co_return {};
  };
  auto r = executor_.block_on(body());
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace starling::net
