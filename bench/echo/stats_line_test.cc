#include "bench/echo/stats_line.h"

#include <gtest/gtest.h>

namespace starling::bench {
namespace {

TEST(StatsLine, Parses) {
  const auto line = parse_stats_line("STARLING-STATS pbuf_pool_max=12 instret=123456789\n");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->at("pbuf_pool_max"), 12u);
  EXPECT_EQ(line->at("instret"), 123456789u);
  EXPECT_EQ(line->size(), 2u);
  EXPECT_TRUE(parse_stats_line("STARLING-STATS").has_value());
}

TEST(StatsLine, RejectsMalformed) {
  EXPECT_FALSE(parse_stats_line("STARLING-STAT x=1").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATS x").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATS x=").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATS =1").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATS x=1a").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATS x=-1").has_value());
  EXPECT_FALSE(parse_stats_line("STARLING-STATSx=1").has_value());
}

TEST(StatsLine, Delta) {
  const auto before = *parse_stats_line("STARLING-STATS instret=100 udp_echoed=5");
  const auto after = *parse_stats_line("STARLING-STATS instret=3100 udp_echoed=4");
  EXPECT_EQ(stats_delta(before, after, "instret"), 3000u);
  EXPECT_FALSE(stats_delta(before, after, "udp_echoed").has_value());  // went backwards
  EXPECT_FALSE(stats_delta(before, after, "cycles").has_value());      // absent
}

}  // namespace
}  // namespace starling::bench
