#ifndef STARLING_KERNEL_ASYNC_STALL_DETECTOR_H_
#define STARLING_KERNEL_ASYNC_STALL_DETECTOR_H_

#include <cstdint>
#include <string_view>

#include "kernel/hal/busy_tick.h"
#include "kernel/lib/bootargs.h"
#include "kernel/lib/result.h"

// The stall detector: a task that keeps the hart longer than a threshold
// without suspending is reported once on the console, with the backtrace of
// where the busy tick (kernel/hal/busy_tick.h) found it, and counted.
//
// Tasks are cooperative: while one runs, no other task, no timer and no
// packet is served. A loop that never reaches a co_await (or that spins on a
// condition only another task can change) is the one fault that the bounds
// elsewhere cannot catch; this finds it and names the function.
//
// How it measures: the busy tick samples the executor's run_sequence() every
// threshold/4. A run first seen at time T and still running at time T' has
// run at least T' - T; once that reaches the threshold the run is reported
// (once). So a run of threshold + threshold/4 or longer is always reported,
// one shorter than the threshold never, and the figure printed is a lower
// bound. Reports are rate-limited (kStallReportsPerMinute a minute; the rest
// are counted, and the next report says how many were left out): a UART at
// 115200 baud takes ~25 ms per report, in the trap.
//
// Console, on a stall (riscv64):
//   STALL: a task has kept the hart 12 ms without suspending (threshold 10 ms); ...
//   STALL: fix: ...
//   STALL: backtrace
//   STALL: #0 0x...        where the tick found it, then return addresses
//   STALL: end
namespace starling::async {

inline constexpr std::uint64_t kDefaultStallThresholdNs =
    10'000'000;  // 10 ms, as Seastar's default
inline constexpr std::uint64_t kMaxStallThresholdMs = 60'000;
inline constexpr std::uint64_t kStallReportsPerMinute = 5;

// What a report says; the default reporter prints it (print_stall_report).
struct StallReport {
  std::uint64_t ran_ns = 0;  // at least this long so far
  std::uint64_t threshold_ns = 0;
  std::uint64_t suppressed_before = 0;  // reports left out since the last one
  hal::InterruptedAt where;
  bool may_wait = false;  // the reporter may decline and be asked again
};
// True if the report was made; false to be asked again at the next sample
// of the same run (only while report.may_wait).
using StallReporter = bool (*)(const StallReport& report);

// Prints the report, unless the console is in the middle of a line (the
// stalled task's own, say) and it may wait: a report cutting a line in two
// would break what reads the console by lines.
bool print_stall_report(const StallReport& report);

// Samples a report may wait for the console to reach a line's end: two
// thresholds' worth, then it is printed on a line of its own anyway.
inline constexpr std::uint64_t kStallReportMaxWaits = 8;

class StallDetector {
 public:
  explicit constexpr StallDetector(StallReporter reporter = &print_stall_report) noexcept
      : reporter_(reporter) {}

  // 0 turns reporting off (samples are then ignored).
  void set_threshold(std::uint64_t threshold_ns) noexcept { threshold_ns_ = threshold_ns; }
  std::uint64_t threshold_ns() const noexcept { return threshold_ns_; }
  // How often to sample for this threshold (a quarter of it).
  std::uint64_t sample_period_ns() const noexcept { return threshold_ns_ / 4; }

  // One sample, from the busy tick (in the trap): the executor's
  // run_sequence() (odd while a task runs), the time, where the hart was.
  void sample(std::uint64_t run_sequence, std::uint64_t now_ns,
              const hal::InterruptedAt& where) noexcept;

  // Runs that kept the hart past the threshold (each counted once).
  std::uint64_t stalls() const noexcept { return stalls_; }
  std::uint64_t reports() const noexcept { return reports_; }
  std::uint64_t suppressed() const noexcept { return suppressed_; }
  // The longest run seen so far (a lower bound, like every figure here).
  std::uint64_t longest_ns() const noexcept { return longest_ns_; }
  std::uint64_t samples() const noexcept { return samples_; }

 private:
  StallReporter reporter_;
  std::uint64_t threshold_ns_ = 0;
  std::uint64_t observed_sequence_ = 0;  // the run being timed (odd), or 0
  std::uint64_t observed_at_ns_ = 0;     // when it was first seen
  bool observed_counted_ = false;
  bool observed_reported_ = false;
  std::uint64_t observed_waits_ = 0;   // samples the report has waited
  std::uint64_t window_start_ns_ = 0;  // the rate limit's minute
  std::uint64_t window_reports_ = 0;
  std::uint64_t suppressed_since_report_ = 0;
  std::uint64_t stalls_ = 0;
  std::uint64_t reports_ = 0;
  std::uint64_t suppressed_ = 0;
  std::uint64_t longest_ns_ = 0;
  std::uint64_t samples_ = 0;
};

// The image's detector, the one the busy tick feeds.
StallDetector& stall_detector() noexcept;

// The threshold on the kernel command line: starling.stall_ms=N.
inline constexpr NumberParam kStallParam{
    .key = "starling.stall_ms",
    .low = 0,
    .high = kMaxStallThresholdMs,
    .fallback = kDefaultStallThresholdNs / 1'000'000,
    .off = false,
    .help =
        "milliseconds a task may keep the hart without suspending before it is reported; "
        "0 turns the stall detector off"};

// The threshold the kernel command line asks for (kStallParam), else the
// default. A malformed or repeated value is ignored with a console line
// naming the fix.
std::uint64_t stall_threshold_from_bootargs(std::string_view bootargs) noexcept;

// Sets the image's detector's threshold and starts (or, for 0, stops) the
// busy tick that feeds it; prints one console line saying which. A board
// without a busy tick: kUnsupported, said on the console, nothing sampled.
Result<void> start_stall_detector(std::uint64_t threshold_ns) noexcept;

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_STALL_DETECTOR_H_
