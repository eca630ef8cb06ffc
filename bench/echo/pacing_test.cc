#include "bench/echo/pacing.h"

#include <gtest/gtest.h>

namespace starling::bench {
namespace {

TEST(PacingSchedule, IntervalFollowsRateAndSize) {
  // 1472 B * 8 = 11776 bits; at 11.776 Mb/s that is one packet per ms.
  const PacingSchedule s(1000, 11'776'000.0, 1472);
  EXPECT_DOUBLE_EQ(s.interval_ns(), 1'000'000.0);
  EXPECT_EQ(s.due_ns(0), 1000u);
  EXPECT_EQ(s.due_ns(1), 1'001'000u);
  EXPECT_EQ(s.due_ns(1000), 1'000'001'000u);
}

TEST(PacingSchedule, NoDriftOverALongRun) {
  // 3 packets per 1000 ns: an interval of 333.33.. ns. Adding a rounded
  // interval a million times would drift by ~333 µs; from the index, none.
  const PacingSchedule s(0, 3 * 1472 * 8 * 1e6, 1472);
  EXPECT_EQ(s.due_ns(3'000'000), 1'000'000'000u);
}

TEST(PacingSchedule, DueCountIsTheFirstIndexNotYetDue) {
  const PacingSchedule s(10'000, 11'776'000.0, 1472);  // every 1 ms from 10 µs
  EXPECT_EQ(s.due_count(0), 0u);
  EXPECT_EQ(s.due_count(9'999), 0u);
  EXPECT_EQ(s.due_count(10'000), 1u);
  EXPECT_EQ(s.due_count(1'009'999), 1u);
  EXPECT_EQ(s.due_count(1'010'000), 2u);
  EXPECT_EQ(s.due_count(5'500'000), 6u);
}

TEST(PacingSchedule, DueCountAgreesWithDueNsAtEveryBoundary) {
  const PacingSchedule s(7, 987'654'321.0, 1472);  // an interval that does not divide
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const std::uint64_t t = s.due_ns(i);
    ASSERT_EQ(s.due_count(t), i + 1) << i;
    if (t > 0 && (i == 0 || s.due_ns(i - 1) < t)) ASSERT_EQ(s.due_count(t - 1), i) << i;
  }
}

}  // namespace
}  // namespace starling::bench
