#include "kernel/mem/page_metrics.h"

namespace starling::mem {

Result<void> register_page_metrics(metrics::Registry& registry, const PageAllocator& pages) {
  using metrics::Type;
  const PageAllocatorStats& stats = pages.stats();
  const struct {
    metrics::SampleSpec spec;
    const std::size_t* value;
  } entries[] = {
      {{.name = "starling_pages",
        .help = "4 KiB pages the page allocator manages.",
        .type = Type::kGauge},
       &stats.total_pages},
      {{.name = "starling_pages_free", .help = "Pages free now.", .type = Type::kGauge},
       &stats.free_pages},
      {{.name = "starling_pages_peak",
        .help = "Most pages ever in use at once.",
        .type = Type::kGauge,
        .line_key = "pages_max"},
       &stats.high_water_pages},
      {{.name = "starling_page_allocation_failures_total",
        .help = "Page allocations refused: not enough contiguous free pages."},
       &stats.failed_allocations},
      {{.name = "starling_page_refused_frees_total",
        .help = "Frees refused: double, foreign or misaligned."},
       &stats.refused_frees},
  };
  for (const auto& e : entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::mem
