#include "kernel/async/runtime_metrics.h"

#include "kernel/async/stall_detector.h"
#include "kernel/hal/clock.h"

namespace starling::async {
namespace {

using metrics::SampleSpec;
using metrics::Type;

const Executor& executor_of(const void* c) {
  return *static_cast<const Executor*>(c);
}
const StallDetector& stall_of(const void* c) {
  return *static_cast<const StallDetector*>(c);
}
const FrameAllocator& frames_of(const void* c) {
  return *static_cast<const FrameAllocator*>(c);
}

}  // namespace

Result<void> register_runtime_metrics(metrics::Registry& registry, const Executor& executor,
                                      const FrameAllocator* frames) {
  struct Entry {
    SampleSpec spec;
    metrics::Reader read;
  };
  const Entry executor_entries[] = {
      {{.name = "starling_runtime_ready_tasks",
        .help = "Tasks ready to run, waiting for the hart.",
        .type = Type::kGauge},
       [](const void* c) -> std::uint64_t { return executor_of(c).ready_tasks(); }},
      {{.name = "starling_runtime_idle_cycles_total",
        .help = "Cycles the hart spent idle (waiting for an interrupt) since boot.",
        .line_key = "idle_cycles"},
       [](const void* c) { return executor_of(c).idle_cycles(); }},
      {{.name = "starling_runtime_cycles_total",
        .help = "Cycles since boot.",
        .line_key = "cycles"},
       [](const void*) { return hal::cycles(); }},
      {{.name = "starling_runtime_instructions_total",
        .help = "Instructions retired since boot.",
        .line_key = "instret"},
       [](const void*) { return hal::instructions(); }},
      {{.name = "starling_uptime_seconds",
        .help = "Seconds since boot (to the nanosecond).",
        .type = Type::kGauge,
        .line_key = "uptime_ns",
        .decimals = 9},
       [](const void*) { return hal::now_ns(); }},
  };
  for (const Entry& e : executor_entries) {
    if (auto ok = registry.add(e.spec, e.read, &executor); !ok.ok()) return ok;
  }
  const Entry stall_entries[] = {
      {{.name = "starling_stall_threshold_seconds",
        .help = "A task running this long without suspending is a stall (starling.stall_ms=); "
                "0: the detector is off or the board has no busy tick.",
        .type = Type::kGauge,
        .decimals = 9},
       [](const void* c) { return stall_of(c).threshold_ns(); }},
      {{.name = "starling_stalls_total",
        .help = "Task runs that kept the hart past the stall threshold without suspending."},
       [](const void* c) { return stall_of(c).stalls(); }},
      {{.name = "starling_stall_reports_total",
        .help = "Stalls reported on the console with a backtrace."},
       [](const void* c) { return stall_of(c).reports(); }},
      {{.name = "starling_stall_reports_suppressed_total",
        .help = "Stalls not reported: more than 5 in a minute."},
       [](const void* c) { return stall_of(c).suppressed(); }},
      {{.name = "starling_stall_longest_seconds",
        .help = "The longest task run the stall detector has seen (a lower bound).",
        .type = Type::kGauge,
        .line_key = "stall_longest_ns",
        .decimals = 9},
       [](const void* c) { return stall_of(c).longest_ns(); }},
  };
  for (const Entry& e : stall_entries) {
    if (auto ok = registry.add(e.spec, e.read, &stall_detector()); !ok.ok()) return ok;
  }
  if (frames == nullptr) return {};
  const Entry frame_entries[] = {
      {{.name = "starling_coroutine_frames",
        .help = "Coroutine frames allocated now.",
        .type = Type::kGauge,
        .line_key = "coroutine_frames_used"},
       [](const void* c) -> std::uint64_t { return frames_of(c).frames_in_use(); }},
      {{.name = "starling_coroutine_frame_bytes",
        .help = "Bytes of the frame arena in use now (size classes).",
        .type = Type::kGauge},
       [](const void* c) -> std::uint64_t { return frames_of(c).bytes_in_use(); }},
      {{.name = "starling_coroutine_frame_bytes_peak",
        .help = "Most bytes of the frame arena ever in use at once.",
        .type = Type::kGauge,
        .line_key = "coroutine_frames_max_bytes"},
       [](const void* c) -> std::uint64_t { return frames_of(c).peak_bytes_in_use(); }},
      {{.name = "starling_coroutine_frame_failures_total",
        .help = "Coroutine frames refused: the arena was full.",
        .line_key = "coroutine_frame_failures"},
       [](const void* c) { return frames_of(c).failed_allocations(); }},
  };
  for (const Entry& e : frame_entries) {
    if (auto ok = registry.add(e.spec, e.read, frames); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::async
