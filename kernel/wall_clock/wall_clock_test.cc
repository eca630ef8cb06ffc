#include "kernel/wall_clock/wall_clock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ctime>
#include <string>

#include "kernel/wall_clock/calendar.h"

namespace starling::wall_clock {
namespace {

std::string http_date(std::int64_t seconds) {
  text::Line<64> line;
  write_http_date(seconds, line);
  return std::string(line.view());
}

std::string rfc3339(std::int64_t seconds) {
  text::Line<64> line;
  write_rfc3339(seconds, line);
  return std::string(line.view());
}

// RFC 9110's own example, the epoch, a leap day, the last second of a
// century's non-leap year, and this project's floor.
TEST(Calendar, KnownDates) {
  EXPECT_EQ(http_date(784'111'777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(rfc3339(951'782'400), "2000-02-29T00:00:00Z");
  EXPECT_EQ(rfc3339(4'107'542'399), "2100-02-28T23:59:59Z");
  EXPECT_EQ(rfc3339(4'107'542'400), "2100-03-01T00:00:00Z");
  EXPECT_EQ(rfc3339(kFloorUnixSeconds), "2026-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339(-1), "1969-12-31T23:59:59Z");
}

// Against the C library's gmtime_r, a day and a few seconds at a time from
// 1900 to 2200, and back through to_unix.
TEST(Calendar, AgreesWithGmtime) {
  for (std::int64_t t = -2'208'988'800; t < 7'258'118'400; t += 86'400 * 7 + 3'607) {
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&tt, &tm), nullptr);
    const Civil c = to_civil(t);
    ASSERT_EQ(c.year, tm.tm_year + 1900) << t;
    ASSERT_EQ(c.month, static_cast<unsigned>(tm.tm_mon + 1)) << t;
    ASSERT_EQ(c.day, static_cast<unsigned>(tm.tm_mday)) << t;
    ASSERT_EQ(c.hour, static_cast<unsigned>(tm.tm_hour)) << t;
    ASSERT_EQ(c.minute, static_cast<unsigned>(tm.tm_min)) << t;
    ASSERT_EQ(c.second, static_cast<unsigned>(tm.tm_sec)) << t;
    ASSERT_EQ(c.weekday, static_cast<unsigned>(tm.tm_wday)) << t;
    ASSERT_EQ(to_unix(c), t);
  }
}

class WallClockTest : public ::testing::Test {
 protected:
  void SetUp() override { reset_for_testing(); }
  void TearDown() override { reset_for_testing(); }
};

TEST_F(WallClockTest, UnsetUntilSet) {
  EXPECT_FALSE(is_set());
  EXPECT_FALSE(unix_ns_at(123).has_value());
  EXPECT_FALSE(now_unix_seconds().has_value());
}

TEST_F(WallClockTest, FollowsTheMonotonicClockAndCountsSteps) {
  constexpr std::int64_t kT = 1'796'000'000LL * kNanosecondsPerSecond;  // 2026-11
  auto first = set(kT, 1'000);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, 0);
  EXPECT_EQ(unix_ns_at(1'000).value(), kT);
  EXPECT_EQ(unix_ns_at(5'001'000).value(), kT + 5'000'000);
  // An hour back, as read at monotonic 2'000.
  auto back = set(kT + 1'000 - 3'600 * kNanosecondsPerSecond, 2'000);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, -3'600 * kNanosecondsPerSecond);
  EXPECT_EQ(stats().sets, 2u);
  EXPECT_EQ(stats().steps_back, 1u);
  EXPECT_EQ(stats().last_step_abs_ns, 3'600u * kNanosecondsPerSecond);
  EXPECT_EQ(stats().last_set_ns, 2'000u);
}

TEST_F(WallClockTest, RefusesATimeBeforeTheFloorAndKeepsItsOwn) {
  constexpr std::int64_t kT = 1'796'000'000LL * kNanosecondsPerSecond;
  ASSERT_TRUE(set(kT, 0).ok());
  auto r = set(631'152'000LL * kNanosecondsPerSecond, 10);  // 1990
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(stats().refused_floor, 1u);
  EXPECT_EQ(unix_ns_at(10).value(), kT + 10);
  EXPECT_EQ(stats().sets, 1u);
}

}  // namespace
}  // namespace starling::wall_clock
