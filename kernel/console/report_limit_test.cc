#include "kernel/console/report_limit.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace starling::console {
namespace {

TEST(ReportLimit, FirstFewThenOneInEvery) {
  std::uint64_t told = 0;
  for (std::uint64_t nth = 1; nth <= 100'000; ++nth) told += worth_reporting(nth) ? 1 : 0;
  EXPECT_EQ(told, kReportFirst + 100'000 / kReportEvery);
  EXPECT_TRUE(worth_reporting(1));
  EXPECT_TRUE(worth_reporting(kReportFirst));
  EXPECT_FALSE(worth_reporting(kReportFirst + 1));
  EXPECT_TRUE(worth_reporting(kReportEvery));
}

}  // namespace
}  // namespace starling::console
