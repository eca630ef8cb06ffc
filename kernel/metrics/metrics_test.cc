#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "kernel/metrics/prometheus.h"
#include "kernel/metrics/registry.h"
#include "kernel/metrics/stats_line.h"

namespace starling::metrics {
namespace {

std::uint64_t forty_two(const void*) {
  return 42;
}

std::string render(const Registry& r) {
  std::array<char, 4096> out;
  auto n = render_prometheus(r, out);
  EXPECT_TRUE(n.ok());
  return n.ok() ? std::string(out.data(), *n) : std::string();
}

TEST(MetricsTest, NamesFollowTheExpositionFormat) {
  EXPECT_TRUE(valid_metric_name("starling_nic_rx_frames_total"));
  EXPECT_TRUE(valid_metric_name(":colon_ok"));
  EXPECT_TRUE(valid_metric_name("a1"));
  EXPECT_FALSE(valid_metric_name(""));
  EXPECT_FALSE(valid_metric_name("1abc"));
  EXPECT_FALSE(valid_metric_name("has-dash"));
  EXPECT_FALSE(valid_metric_name("has space"));
  EXPECT_TRUE(valid_label_name("nic"));
  EXPECT_FALSE(valid_label_name("__reserved"));
  EXPECT_FALSE(valid_label_name("a:b"));
  EXPECT_FALSE(valid_label_name("9"));
}

TEST(MetricsTest, RendersFamiliesTogetherInRegistrationOrder) {
  auto r = std::make_unique<Registry>();
  std::uint64_t a = 1, b = 2, c = 3;
  ASSERT_TRUE(
      r->add({.name = "x_total", .help = "X.", .labels = {{{"nic", "a"}}}, .label_count = 1}, &a)
          .ok());
  ASSERT_TRUE(r->add({.name = "y", .help = "Y.", .type = Type::kGauge}, &b).ok());
  // A second sample of x, registered after y: still rendered under x.
  ASSERT_TRUE(
      r->add({.name = "x_total", .help = "X.", .labels = {{{"nic", "b"}}}, .label_count = 1}, &c)
          .ok());
  ASSERT_TRUE(r->add({.name = "z",
                      .help = "Z.",
                      .type = Type::kGauge,
                      .labels = {{{"k1", "v1"}, {"k2", "v2"}}},
                      .label_count = 2},
                     &forty_two, nullptr)
                  .ok());
  EXPECT_EQ(render(*r),
            "# HELP x_total X.\n"
            "# TYPE x_total counter\n"
            "x_total{nic=\"a\"} 1\n"
            "x_total{nic=\"b\"} 3\n"
            "# HELP y Y.\n"
            "# TYPE y gauge\n"
            "y 2\n"
            "# HELP z Z.\n"
            "# TYPE z gauge\n"
            "z{k1=\"v1\",k2=\"v2\"} 42\n");
  a = 18'446'744'073'709'551'615u;  // values are read when rendered
  EXPECT_NE(render(*r).find("x_total{nic=\"a\"} 18446744073709551615\n"), std::string::npos);
}

// A time kept in nanoseconds is a metric in seconds (Prometheus's base unit):
// rendered exactly, as a decimal fraction; the stats line keeps the count.
TEST(MetricsTest, RendersDecimalsExactly) {
  auto r = std::make_unique<Registry>();
  std::uint64_t ns = 123'456;
  ASSERT_TRUE(r->add({.name = "t_seconds",
                      .help = "T.",
                      .type = Type::kGauge,
                      .line_key = "t_ns",
                      .decimals = 9},
                     &ns)
                  .ok());
  EXPECT_NE(render(*r).find("t_seconds 0.000123456\n"), std::string::npos) << render(*r);
  ns = 12'000'000'007;
  EXPECT_NE(render(*r).find("t_seconds 12.000000007\n"), std::string::npos) << render(*r);
  std::array<char, 64> line;
  const std::size_t n = render_stats_line(*r, "STATS", line);
  EXPECT_EQ(std::string_view(line.data(), n), "STATS t_ns=12000000007\n");
  ns = 0;
  EXPECT_NE(render(*r).find("t_seconds 0.000000000\n"), std::string::npos) << render(*r);
  ns = 18'446'744'073'709'551'615u;
  EXPECT_NE(render(*r).find("t_seconds 18446744073.709551615\n"), std::string::npos) << render(*r);
  // One family, one unit: a second registration with other decimals is refused.
  std::uint64_t other = 1;
  EXPECT_FALSE(r->add({.name = "t_seconds",
                       .help = "T.",
                       .type = Type::kGauge,
                       .labels = {{{"k", "v"}}},
                       .label_count = 1},
                      &other)
                   .ok());
  EXPECT_FALSE(r->add({.name = "u_seconds", .help = "U.", .decimals = 19}, &other).ok());
}

TEST(MetricsTest, EscapesHelpAndLabelValues) {
  auto r = std::make_unique<Registry>();
  std::uint64_t v = 0;
  ASSERT_TRUE(r->add({.name = "e",
                      .help = "back\\slash \"q\"\nnext",
                      .type = Type::kGauge,
                      .labels = {{{"p", "a\\b\"c\"\nd"}}},
                      .label_count = 1},
                     &v)
                  .ok());
  EXPECT_EQ(render(*r),
            "# HELP e back\\\\slash \"q\"\\nnext\n"
            "# TYPE e gauge\n"
            "e{p=\"a\\\\b\\\"c\\\"\\nd\"} 0\n");
}

TEST(MetricsTest, RefusesWhatWouldBreakThePage) {
  auto r = std::make_unique<Registry>();
  std::uint64_t v = 0;
  EXPECT_EQ(r->add({.name = "bad-name", .help = "h"}, &v).error(), Error::kInvalidArgument);
  EXPECT_EQ(r->add({.name = "no_help"}, &v).error(), Error::kInvalidArgument);
  EXPECT_EQ(
      r->add({.name = "l", .help = "h", .labels = {{{"__x", "v"}}}, .label_count = 1}, &v).error(),
      Error::kInvalidArgument);
  EXPECT_EQ(r->add({.name = "l", .help = "h", .label_count = 3}, &v).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(r->add({.name = "null_reader", .help = "h"}, nullptr, nullptr).error(),
            Error::kInvalidArgument);
  ASSERT_TRUE(r->add({.name = "once", .help = "h"}, &v).ok());
  // The same sample twice, or the family redefined: one name, one meaning.
  EXPECT_EQ(r->add({.name = "once", .help = "h"}, &v).error(), Error::kInvalidArgument);
  EXPECT_EQ(
      r->add({.name = "once", .help = "other", .labels = {{{"a", "b"}}}, .label_count = 1}, &v)
          .error(),
      Error::kInvalidArgument);
  EXPECT_EQ(r->add({.name = "once",
                    .help = "h",
                    .type = Type::kGauge,
                    .labels = {{{"a", "b"}}},
                    .label_count = 1},
                   &v)
                .error(),
            Error::kInvalidArgument);
  EXPECT_EQ(r->refused(), 8u);
  EXPECT_EQ(r->sample_count(), 1u);
  EXPECT_EQ(r->family_count(), 1u);
}

TEST(MetricsTest, AFullRegistryRefusesAndCounts) {
  auto r = std::make_unique<Registry>();
  static std::array<std::string, Registry::kMaxSamples + 1> values;
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < Registry::kMaxSamples; ++i) {
    values[i] = std::to_string(i);
    ASSERT_TRUE(r->add({.name = "many",
                        .help = "h",
                        .type = Type::kGauge,
                        .labels = {{{"i", values[i]}}},
                        .label_count = 1},
                       &v)
                    .ok())
        << i;
  }
  values.back() = "last";
  EXPECT_EQ(r->add({.name = "many",
                    .help = "h",
                    .type = Type::kGauge,
                    .labels = {{{"i", values.back()}}},
                    .label_count = 1},
                   &v)
                .error(),
            Error::kNoMemory);
  EXPECT_EQ(r->refused(), 1u);
  // Families have their own bound.
  auto f = std::make_unique<Registry>();
  static std::array<std::string, Registry::kMaxFamilies + 1> names;
  for (std::size_t i = 0; i <= Registry::kMaxFamilies; ++i)
    names[i] = "family_" + std::to_string(i);
  for (std::size_t i = 0; i < Registry::kMaxFamilies; ++i) {
    ASSERT_TRUE(f->add({.name = names[i], .help = "h"}, &v).ok()) << i;
  }
  EXPECT_EQ(f->add({.name = names.back(), .help = "h"}, &v).error(), Error::kNoMemory);
}

TEST(MetricsTest, APageThatDoesNotFitIsRefusedWhole) {
  auto r = std::make_unique<Registry>();
  std::uint64_t v = 5;
  ASSERT_TRUE(r->add({.name = "a", .help = "A.", .type = Type::kGauge}, &v).ok());
  const std::string page = render(*r);
  std::array<char, 64> out;
  ASSERT_LT(page.size(), out.size());
  EXPECT_EQ(*render_prometheus(*r, std::span<char>(out.data(), page.size())), page.size());
  EXPECT_EQ(render_prometheus(*r, std::span<char>(out.data(), page.size() - 1)).error(),
            Error::kNoMemory);
}

TEST(MetricsTest, StatsLineHasTheLineKeysAndLeavesOffWhatDoesNotFit) {
  auto r = std::make_unique<Registry>();
  std::uint64_t a = 12, b = 345, c = 6;
  ASSERT_TRUE(r->add({.name = "a_total", .help = "h", .line_key = "a"}, &a).ok());
  ASSERT_TRUE(r->add({.name = "hidden", .help = "h"}, &b).ok());  // no line key
  ASSERT_TRUE(
      r->add({.name = "bbbb", .help = "h", .type = Type::kGauge, .line_key = "bbbb"}, &b).ok());
  ASSERT_TRUE(r->add({.name = "c", .help = "h", .type = Type::kGauge, .line_key = "c"}, &c).ok());
  std::array<char, 64> out;
  std::size_t n = render_stats_line(*r, "STATS", out);
  EXPECT_EQ(std::string_view(out.data(), n), "STATS a=12 bbbb=345 c=6\n");
  // 19 bytes: room for "STATS a=12", " c=6" and the newline, not for
  // " bbbb=345" as well: that pair is left off whole.
  n = render_stats_line(*r, "STATS", std::span<char>(out.data(), 19));
  EXPECT_EQ(std::string_view(out.data(), n), "STATS a=12 c=6\n");
  // Key prefixes: only the keys that start with one of them.
  const std::string_view only[] = {"bb", "c"};
  n = render_stats_line(*r, "STATS", out, only);
  EXPECT_EQ(std::string_view(out.data(), n), "STATS bbbb=345 c=6\n");
  const std::string_view none[] = {"zzz"};
  n = render_stats_line(*r, "STATS", out, none);
  EXPECT_EQ(std::string_view(out.data(), n), "STATS\n");
}

TEST(MetricsTest, TheImageRegistryIsOne) {
  EXPECT_EQ(&registry(), &registry());
}

}  // namespace
}  // namespace starling::metrics
