#include "kernel/metrics/page.h"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>

#include "kernel/hal/clock.h"
#include "kernel/metrics/prometheus.h"
#include "kernel/metrics/registry.h"

namespace starling::metrics {
namespace {

std::string sample_line(std::string_view name, std::uint64_t value) {
  return std::string(name) + " " + std::to_string(value) + "\n";
}

// A time kept in nanoseconds, rendered in seconds (Family::decimals = 9).
std::string seconds_line(std::string_view name, std::uint64_t nanoseconds) {
  std::string fraction = std::to_string(nanoseconds % 1'000'000'000);
  fraction.insert(0, 9 - fraction.size(), '0');
  return std::string(name) + " " + std::to_string(nanoseconds / 1'000'000'000) + "." + fraction +
         "\n";
}

// The page's cost is on the page: each render shows the one before it.
TEST(PageTest, EachRenderIsTimedAndShownOnTheNext) {
  auto r = std::make_unique<Registry>();
  std::uint64_t other = 7;
  ASSERT_TRUE(r->add({.name = "other", .help = "Other.", .type = Type::kGauge}, &other).ok());
  ASSERT_TRUE(register_render_metrics(*r).ok());
  const std::uint64_t renders = page_cost().renders;
  const std::uint64_t failures = page_cost().failures;

  std::array<char, 4096> out;
  const std::uint64_t before_ns = hal::now_ns();
  auto first = render_page(*r, out);
  const std::uint64_t elapsed_ns = hal::now_ns() - before_ns;
  ASSERT_TRUE(first.ok());
  // The same page render_prometheus gives, apart from the figures it shows.
  EXPECT_EQ(page_cost().renders, renders + 1);
  EXPECT_EQ(page_cost().bytes, *first);
  EXPECT_GT(page_cost().nanoseconds, 0u);
  EXPECT_LE(page_cost().nanoseconds, elapsed_ns);
  EXPECT_GE(page_cost().nanoseconds_peak, page_cost().nanoseconds);
  if (hal::instructions() == 0) EXPECT_EQ(page_cost().instructions, 0u);  // the host board
  const PageCost first_cost = page_cost();

  auto second = render_page(*r, out);
  ASSERT_TRUE(second.ok());
  const std::string page(out.data(), *second);
  EXPECT_NE(page.find(sample_line("starling_metrics_page_bytes", *first)), std::string::npos)
      << page;
  EXPECT_NE(page.find(seconds_line("starling_metrics_render_seconds", first_cost.nanoseconds)),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(sample_line("starling_metrics_render_instructions", first_cost.instructions)),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(sample_line("starling_metrics_renders_total", renders + 1)),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("# TYPE starling_metrics_page_bytes gauge\n"), std::string::npos);
  EXPECT_NE(page.find("# TYPE starling_metrics_renders_total counter\n"), std::string::npos);
  EXPECT_NE(page.find(sample_line("other", 7)), std::string::npos);
  // Digits change, not the shape: the page is the same size give or take them.
  EXPECT_LT(*second > *first ? *second - *first : *first - *second, 40u);
  EXPECT_EQ(page_cost().renders, renders + 2);
  EXPECT_EQ(page_cost().bytes, *second);

  // A page that does not fit: refused as render_prometheus refuses it,
  // counted, and the last good page's size kept.
  std::array<char, 16> small;
  auto refused = render_page(*r, small);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), Error::kNoMemory);
  EXPECT_EQ(page_cost().failures, failures + 1);
  EXPECT_EQ(page_cost().bytes, *second);
  EXPECT_EQ(page_cost().renders, renders + 3);
}

TEST(PageTest, RendersWhatRenderPrometheusRenders) {
  auto r = std::make_unique<Registry>();
  std::uint64_t v = 3;
  ASSERT_TRUE(r->add({.name = "v_total", .help = "V."}, &v).ok());
  std::array<char, 256> a;
  std::array<char, 256> b;
  auto n = render_page(*r, a);
  auto m = render_prometheus(*r, b);
  ASSERT_TRUE(n.ok());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(std::string(a.data(), *n), std::string(b.data(), *m));
}

TEST(PageTest, RegisteredOncePerRegistry) {
  auto r = std::make_unique<Registry>();
  ASSERT_TRUE(register_render_metrics(*r).ok());
  EXPECT_EQ(r->family_count(), 6u);
  EXPECT_EQ(register_render_metrics(*r).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace starling::metrics
