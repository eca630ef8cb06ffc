#include "net/port/icmp6_rate.h"

#include <gtest/gtest.h>

namespace starling::net {
namespace {

constexpr std::uint64_t kSecond = 1'000'000'000;

TEST(Icmp6Rate, BurstThenTheRate) {
  const std::uint64_t t0 = 50 * kSecond;
  reset_icmp6_rate_for_testing(t0);
  const auto before = icmp6_rate_stats();
  std::uint32_t admitted = 0;
  for (int i = 0; i < 1000; ++i) admitted += admit_icmp6_error(t0) ? 1 : 0;
  EXPECT_EQ(admitted, kIcmp6ErrorBurst);
  EXPECT_EQ(icmp6_rate_stats().limited - before.limited, 1000u - kIcmp6ErrorBurst);
  // One second of a flood: the burst refilled no faster than the rate.
  admitted = 0;
  for (std::uint64_t ns = 0; ns < kSecond; ns += kSecond / 10'000) {
    admitted += admit_icmp6_error(t0 + ns) ? 1 : 0;
  }
  EXPECT_GE(admitted, kIcmp6ErrorsPerSecond - 1);
  EXPECT_LE(admitted, kIcmp6ErrorsPerSecond);
  // A quiet while fills the bucket to its burst, not beyond.
  admitted = 0;
  for (int i = 0; i < 1000; ++i) admitted += admit_icmp6_error(t0 + 60 * kSecond) ? 1 : 0;
  EXPECT_EQ(admitted, kIcmp6ErrorBurst);
}

TEST(Icmp6Rate, ClockGoingBackwardsGrantsNothing) {
  reset_icmp6_rate_for_testing(100 * kSecond);
  for (std::uint32_t i = 0; i < kIcmp6ErrorBurst; ++i)
    EXPECT_TRUE(admit_icmp6_error(100 * kSecond));
  EXPECT_FALSE(admit_icmp6_error(10 * kSecond));
}

}  // namespace
}  // namespace starling::net
