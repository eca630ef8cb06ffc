#include "bench/echo/rtt_stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling::bench {
namespace {

TEST(RttStats, EmptyIsAllZero) {
  std::vector<std::uint64_t> none;
  const RttStats s = compute_rtt_stats(none);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.max_us, 0);
  EXPECT_EQ(s.median_us, 0);
}

TEST(RttStats, OddCountInMicroseconds) {
  std::vector<std::uint64_t> ns = {5000, 1000, 3000, 2000, 4000};  // unsorted on purpose
  const RttStats s = compute_rtt_stats(ns);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min_us, 1.0);
  EXPECT_DOUBLE_EQ(s.max_us, 5.0);
  EXPECT_DOUBLE_EQ(s.avg_us, 3.0);
  EXPECT_DOUBLE_EQ(s.median_us, 3.0);
  EXPECT_NEAR(s.stdev_us, 1.41421356, 1e-6);  // population: sqrt(2)
}

TEST(RttStats, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
  std::vector<std::uint64_t> ns = {1000, 9000, 2000, 4000};
  const RttStats s = compute_rtt_stats(ns);
  EXPECT_DOUBLE_EQ(s.median_us, 3.0);
  EXPECT_DOUBLE_EQ(s.avg_us, 4.0);
}

TEST(RttStats, NoCancellationForLargeEqualValues) {
  std::vector<std::uint64_t> ns(1000, 4'000'000'000'123ull);
  const RttStats s = compute_rtt_stats(ns);
  EXPECT_EQ(s.stdev_us, 0.0);
  EXPECT_DOUBLE_EQ(s.avg_us, 4'000'000'000.123);
}

}  // namespace
}  // namespace starling::bench
