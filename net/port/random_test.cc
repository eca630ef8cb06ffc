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
    seen.insert(tcp_isn(0x0F02000A, 1236, 0x0202000A, port, 1'000'000));
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_NE(tcp_isn(0x0F02000A, 1236, 0x0202000A, 5000, 0),
            tcp_isn(0x0F02000A, 1237, 0x0202000A, 5000, 0));
  EXPECT_NE(tcp_isn(0x0F02000A, 1236, 0x0302000A, 5000, 0),
            tcp_isn(0x0F02000A, 1236, 0x0202000A, 5000, 0));
}

// M: one tick per 4 us, so a connection's next incarnation starts further on.
TEST(TcpIsn, AdvancesWithTheFourMicrosecondClock) {
  set_keys_for_testing(kIsnKey, kRandKey);
  const std::uint32_t at0 = tcp_isn(1, 2, 3, 4, 0);
  EXPECT_EQ(tcp_isn(1, 2, 3, 4, 3999), at0);
  EXPECT_EQ(tcp_isn(1, 2, 3, 4, 4000), at0 + 1);
  EXPECT_EQ(tcp_isn(1, 2, 3, 4, 4'000'000), at0 + 1000);
}

// The key is what makes it unpredictable: another key, other ISNs.
TEST(TcpIsn, DependsOnTheKey) {
  set_keys_for_testing(kIsnKey, kRandKey);
  const std::uint32_t a = tcp_isn(1, 2, 3, 4, 0);
  set_keys_for_testing(SipKey{kIsnKey.k0 + 1, kIsnKey.k1}, kRandKey);
  EXPECT_NE(tcp_isn(1, 2, 3, 4, 0), a);
}

TEST(LwipRandom, NoRepeatsInAShortRun) {
  set_keys_for_testing(kIsnKey, kRandKey);
  std::set<std::uint32_t> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(random_u32());
  EXPECT_GE(seen.size(), 9990u);  // 32-bit values: collisions are rare, not absent
}

}  // namespace
}  // namespace starling::net
