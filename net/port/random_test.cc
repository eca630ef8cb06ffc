#include "net/port/random.h"

#include <cstdint>
#include <set>

#include "gtest/gtest.h"

namespace starling::net {
namespace {

constexpr SipKey kIsnKey{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
constexpr SipKey kRandKey{1, 2};

// RFC 6528: the ISN of one connection says nothing about another's: distinct
// 4-tuples at the same instant get unrelated values.
TEST(TcpIsn, DiffersAcrossConnections) {
  set_keys_for_testing(kIsnKey, kRandKey);
  std::set<std::uint32_t> seen;
  for (std::uint16_t port = 40000; port < 41000; ++port) {
    seen.insert(
        tcp_isn(IpAddress::v4(0x0F02000A), 1236, IpAddress::v4(0x0202000A), port, 1'000'000));
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_NE(tcp_isn(IpAddress::v4(0x0F02000A), 1236, IpAddress::v4(0x0202000A), 5000, 0),
            tcp_isn(IpAddress::v4(0x0F02000A), 1237, IpAddress::v4(0x0202000A), 5000, 0));
  EXPECT_NE(tcp_isn(IpAddress::v4(0x0F02000A), 1236, IpAddress::v4(0x0302000A), 5000, 0),
            tcp_isn(IpAddress::v4(0x0F02000A), 1236, IpAddress::v4(0x0202000A), 5000, 0));
}

// IPv6: every byte of both addresses is hashed; two peers that differ only
// in their interface identifier (the low 64 bits) get unrelated ISNs, and
// an IPv4 peer never collides with an IPv6 one by its first 32 bits.
TEST(TcpIsn, HashesWholeIpv6Addresses) {
  set_keys_for_testing(kIsnKey, kRandKey);
  const auto local = *parse_ip("2001:db8::15");
  std::set<std::uint32_t> seen;
  for (std::uint8_t low = 1; low <= 200; ++low) {
    IpAddress::V6Bytes remote = parse_ip("2001:db8::")->v6_bytes();
    remote[15] = low;
    seen.insert(tcp_isn(local, 1236, IpAddress::v6(remote), 5000, 0));
  }
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_NE(tcp_isn(IpAddress::v4(0x20010DB8), 1236, IpAddress::v4(0x20010DB8), 5000, 0),
            tcp_isn(local, 1236, *parse_ip("2001:db8::"), 5000, 0));
  EXPECT_NE(syn_cookie_hash(local, 1236, *parse_ip("2001:db8::1"), 5000, 7, 1),
            syn_cookie_hash(local, 1236, *parse_ip("2001:db8::2"), 5000, 7, 1));
}

// M: one tick per 4 us, so a connection's next incarnation starts further on.
TEST(TcpIsn, AdvancesWithTheFourMicrosecondClock) {
  set_keys_for_testing(kIsnKey, kRandKey);
  const std::uint32_t at0 = tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 0);
  EXPECT_EQ(tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 3999), at0);
  EXPECT_EQ(tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 4000), at0 + 1);
  EXPECT_EQ(tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 4'000'000), at0 + 1000);
}

// The key is what makes it unpredictable: another key, other ISNs.
TEST(TcpIsn, DependsOnTheKey) {
  set_keys_for_testing(kIsnKey, kRandKey);
  const std::uint32_t a = tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 0);
  set_keys_for_testing(SipKey{kIsnKey.k0 + 1, kIsnKey.k1}, kRandKey);
  EXPECT_NE(tcp_isn(IpAddress::v4(1), 2, IpAddress::v4(3), 4, 0), a);
}

TEST(LwipRandom, NoRepeatsInAShortRun) {
  set_keys_for_testing(kIsnKey, kRandKey);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(random_u32());
  EXPECT_GE(seen.size(), 9990u);  // 32-bit values: collisions are rare, not absent
}

}  // namespace
}  // namespace starling::net
