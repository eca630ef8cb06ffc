#include "apps/monitor/command.h"

#include <gtest/gtest.h>

namespace starling::monitor {
namespace {

TEST(MonitorCommand, SplitsCommandAndArgumentAroundSpaces) {
  EXPECT_EQ(split("sleep 250").command, "sleep");
  EXPECT_EQ(split("sleep 250").argument, "250");
  EXPECT_EQ(split("   exit    7   ").command, "exit");
  EXPECT_EQ(split("   exit    7   ").argument, "7");
  EXPECT_EQ(split("help").argument, "");
  EXPECT_EQ(split("").command, "");
  EXPECT_EQ(split("     ").command, "");
  EXPECT_EQ(split("a b c").argument, "b c");
}

TEST(MonitorCommand, NumbersAreNonNegativeDecimalsOfAtMostTwelveDigits) {
  EXPECT_EQ(parse_number("0"), 0);
  EXPECT_EQ(parse_number("250"), 250);
  EXPECT_EQ(parse_number("999999999999"), 999'999'999'999);
  EXPECT_EQ(parse_number("1000000000000"), -1);  // 13 digits
  EXPECT_EQ(parse_number(""), -1);
  EXPECT_EQ(parse_number("-1"), -1);
  EXPECT_EQ(parse_number("+1"), -1);
  EXPECT_EQ(parse_number("12a"), -1);
  EXPECT_EQ(parse_number(" 1"), -1);
}

}  // namespace
}  // namespace starling::monitor
