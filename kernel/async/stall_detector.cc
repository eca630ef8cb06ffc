#include "kernel/async/stall_detector.h"

#include "kernel/async/executor.h"
#include "kernel/console/console.h"
#include "kernel/lib/bootargs.h"
#include "kernel/text/writer.h"

namespace starling::async {
namespace {

constexpr std::uint64_t kNsPerMs = 1'000'000;
constexpr std::uint64_t kMinuteNs = 60 * 1'000'000'000ull;
constexpr std::string_view kPrefix = "STALL: ";

constinit StallDetector g_detector;

void print_ms(std::uint64_t ns) {
  console::print_dec(static_cast<std::int64_t>(ns / kNsPerMs));
  console::print(" ms");
}

// In the trap: the executor (if the app made one yet) says which run this is.
void on_busy_tick(const hal::InterruptedAt& where, std::uint64_t now_ns) {
  const Executor* executor = Executor::current_or_null();
  g_detector.sample(executor != nullptr ? executor->run_sequence() : 0, now_ns, where);
}

}  // namespace

bool print_stall_report(const StallReport& report) {
  if (report.may_wait && !console::at_line_start()) return false;
  if (!console::at_line_start()) console::print("\n");
  console::print(kPrefix);
  console::print("a task has kept the hart ");
  print_ms(report.ran_ns);
  console::print(" without suspending (threshold ");
  print_ms(report.threshold_ns);
  console::print("); every other task, timer and packet waits behind it\n");
  console::print(kPrefix);
  console::print(
      "fix: let long loops suspend (co_await async::yield()), or raise starling.stall_ms=\n");
  if (report.suppressed_before != 0) {
    console::print(kPrefix);
    console::print_dec(static_cast<std::int64_t>(report.suppressed_before));
    console::print(" stalls not reported since the last report (at most ");
    console::print_dec(static_cast<std::int64_t>(kStallReportsPerMinute));
    console::print(" a minute)\n");
  }
  console::print(kPrefix);
  console::print("backtrace\n");
  hal::print_backtrace(kPrefix, report.where);
  console::print(kPrefix);
  console::print("end\n");
  return true;
}

void StallDetector::sample(std::uint64_t run_sequence, std::uint64_t now_ns,
                           const hal::InterruptedAt& where) noexcept {
  ++samples_;
  if (threshold_ns_ == 0 || (run_sequence & 1) == 0) {
    observed_sequence_ = 0;  // between tasks (or no executor): nothing runs long
    return;
  }
  if (run_sequence != observed_sequence_) {
    observed_sequence_ = run_sequence;
    observed_at_ns_ = now_ns;
    observed_counted_ = false;
    observed_reported_ = false;
    observed_waits_ = 0;
    return;
  }
  const std::uint64_t ran = now_ns - observed_at_ns_;
  if (ran > longest_ns_) longest_ns_ = ran;
  if (ran < threshold_ns_ || observed_reported_) return;
  if (!observed_counted_) {
    observed_counted_ = true;
    ++stalls_;
    if (window_reports_ == 0 || now_ns - window_start_ns_ >= kMinuteNs) {
      window_start_ns_ = now_ns;
      window_reports_ = 0;
    }
    if (window_reports_ >= kStallReportsPerMinute) {
      observed_reported_ = true;  // not told: counted
      ++suppressed_;
      ++suppressed_since_report_;
      return;
    }
    ++window_reports_;  // this run's report holds its place while it waits
  }
  const bool made = reporter_({.ran_ns = ran,
                               .threshold_ns = threshold_ns_,
                               .suppressed_before = suppressed_since_report_,
                               .where = where,
                               .may_wait = observed_waits_ < kStallReportMaxWaits});
  if (!made) {
    ++observed_waits_;
    return;
  }
  observed_reported_ = true;
  ++reports_;
  suppressed_since_report_ = 0;
}

StallDetector& stall_detector() noexcept {
  return g_detector;
}

std::uint64_t stall_threshold_from_bootargs(std::string_view bootargs) noexcept {
  text::Line<160> why;
  const NumberParamReading reading = read_number_param(bootargs, kStallParam, why);
  if (reading.refused) {
    text::Line<32> in_force;
    in_force.put("using ");
    in_force.put_decimal(kStallParam.fallback);
    in_force.put(" ms");
    console::print_ignoring("Starling",
                            {why.view(), " (whole milliseconds, 0 turns the detector off)"},
                            in_force.view());
  }
  return reading.value * kNsPerMs;
}

Result<void> start_stall_detector(std::uint64_t threshold_ns) noexcept {
  g_detector.set_threshold(threshold_ns);
  const std::uint64_t period = g_detector.sample_period_ns();
  auto started = hal::set_busy_tick(period, &on_busy_tick);
  if (!started.ok()) {
    g_detector.set_threshold(0);
    console::print("Starling: stall detector unavailable on this board (");
    console::print(error_name(started.error()));
    console::print(")\n");
    return started;
  }
  if (period == 0) {
    g_detector.set_threshold(0);
    console::print("Starling: stall detector off (starling.stall_ms=0)\n");
    return {};
  }
  console::print("Starling: stall detector: a task running ");
  print_ms(threshold_ns);
  console::print(" without suspending is reported (starling.stall_ms=)\n");
  return {};
}

}  // namespace starling::async
