#ifndef STARLING_KERNEL_METRICS_PAGE_H_
#define STARLING_KERNEL_METRICS_PAGE_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// The Prometheus page (prometheus.h) with its own cost: render_page()
// renders the registry and records how long that took, in nanoseconds
// (hal::now_ns()) and in instructions retired (hal::instructions()), and
// how many bytes the page was. register_render_metrics() puts those figures
// on the page itself, so a scrape shows what the scrape before it cost:
//
//   starling_metrics_page_bytes                 the last page's size
//   starling_metrics_render_seconds         the last render's duration
//   starling_metrics_render_peak_seconds    the longest render
//   starling_metrics_render_instructions        the last render's instructions
//   starling_metrics_renders_total              pages rendered
//   starling_metrics_render_failures_total      pages that did not fit
//
// Instructions are the board's counter: under QEMU that is virtual time at
// -icount (instructions at shift=0) and the host's TSC without it; the host
// board has none (0). Nothing is allocated: the figures live in .bss.
namespace starling::metrics {

struct PageCost {
  std::uint64_t renders = 0;
  std::uint64_t failures = 0;          // the page did not fit the buffer
  std::uint64_t bytes = 0;             // the last page that fitted
  std::uint64_t nanoseconds = 0;       // the last render
  std::uint64_t nanoseconds_peak = 0;  // the longest render
  std::uint64_t instructions = 0;      // the last render
};

// render_prometheus(registry, out), timed; its result unchanged.
Result<std::size_t> render_page(const Registry& registry, std::span<char> out);

const PageCost& page_cost();

// The figures above as gauges and counters in `registry`.
Result<void> register_render_metrics(Registry& registry);

}  // namespace starling::metrics

#endif  // STARLING_KERNEL_METRICS_PAGE_H_
