#include "kernel/metrics/page.h"

#include "kernel/hal/clock.h"
#include "kernel/metrics/prometheus.h"

namespace starling::metrics {
namespace {

constinit PageCost g_cost;

}  // namespace

Result<std::size_t> render_page(const Registry& registry, std::span<char> out) {
  const std::uint64_t start_ns = hal::now_ns();
  const std::uint64_t start_instructions = hal::instructions();
  auto n = render_prometheus(registry, out);
  const std::uint64_t instructions = hal::instructions() - start_instructions;
  const std::uint64_t nanoseconds = hal::now_ns() - start_ns;
  ++g_cost.renders;
  g_cost.nanoseconds = nanoseconds;
  g_cost.instructions = instructions;
  if (nanoseconds > g_cost.nanoseconds_peak) g_cost.nanoseconds_peak = nanoseconds;
  if (n.ok()) {
    g_cost.bytes = *n;
  } else {
    ++g_cost.failures;
  }
  return n;
}

const PageCost& page_cost() {
  return g_cost;
}

Result<void> register_render_metrics(Registry& registry) {
  struct Entry {
    SampleSpec spec;
    const std::uint64_t* value;
  };
  const Entry entries[] = {
      {{.name = "starling_metrics_page_bytes",
        .help = "Bytes of the last metrics page rendered (that fitted its buffer).",
        .type = Type::kGauge},
       &g_cost.bytes},
      {{.name = "starling_metrics_render_seconds",
        .help = "Time the last metrics page took to render (the page before this one).",
        .type = Type::kGauge,
        .decimals = 9},
       &g_cost.nanoseconds},
      {{.name = "starling_metrics_render_peak_seconds",
        .help = "Time the longest metrics page render took.",
        .type = Type::kGauge,
        .decimals = 9},
       &g_cost.nanoseconds_peak},
      {{.name = "starling_metrics_render_instructions",
        .help = "Instructions retired rendering the last metrics page (the board's counter; "
                "0 where it has none).",
        .type = Type::kGauge},
       &g_cost.instructions},
      {{.name = "starling_metrics_renders_total", .help = "Metrics pages rendered."},
       &g_cost.renders},
      {{.name = "starling_metrics_render_failures_total",
        .help = "Metrics pages that did not fit their buffer."},
       &g_cost.failures},
  };
  for (const Entry& e : entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::metrics
