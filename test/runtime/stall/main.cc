// The stall detector in QEMU (//test/runtime:stall_qemu_test, booted with
// starling.stall_ms=5): a task that yields its way through 40 ms is not a
// stall; one that spins 40 ms without suspending is reported once, with a
// backtrace naming spin_without_suspending and the task; the runtime serves
// timers again afterwards.

#include <cstdint>
#include <string_view>

#include "kernel/arch/riscv/clock.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/async/executor.h"
#include "kernel/async/sleep.h"
#include "kernel/async/stall_detector.h"
#include "kernel/async/task.h"
#include "kernel/async/yield.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"

namespace starling {
namespace {

constexpr std::uint64_t kRunNs = 40 * async::kMillisecond;

int failures = 0;

void check(bool ok, std::string_view what, std::uint64_t value) {
  console::print(ok ? "stall_test: ok   " : "stall_test: FAIL ");
  console::print(what);
  console::print(": ");
  console::print_dec(static_cast<std::int64_t>(value));
  console::print("\n");
  if (!ok) ++failures;
}

// Reads the time CSR itself, calling nothing, so the tick always finds the
// hart in this function: the report's frame #0.
[[gnu::noinline]] void spin_without_suspending(std::uint64_t ns) {
  const std::uint64_t end = riscv::csr_read<riscv::Csr::kTime>() + riscv::ticks_from_ns(ns);
  while (riscv::csr_read<riscv::Csr::kTime>() < end) {
  }
}

// A task with the bug: frame #1 of the report. Not inlined: images are
// built -O2, where the caller would otherwise take the coroutine's frame
// and body into its own (heap elision) and the report would name checks().
[[gnu::noinline]] async::Task<void> hog() {
  spin_without_suspending(kRunNs);
  co_return {};
}

// The same time in a loop that offers the hart at every step.
async::Task<void> polite() {
  const std::uint64_t end = hal::now_ns() + kRunNs;
  while (hal::now_ns() < end) co_await async::yield();
  co_return {};
}

async::Task<void> checks() {
  const async::StallDetector& detector = async::stall_detector();
  check(detector.threshold_ns() == 5 * async::kMillisecond,
        "threshold from starling.stall_ms=5 (ns)", detector.threshold_ns());

  (void)co_await polite();
  check(detector.stalls() == 0, "40 ms of yielding is no stall, stalls", detector.stalls());
  check(detector.samples() > 0, "the busy tick sampled the loop, samples", detector.samples());

  console::print("stall_test: spinning 40 ms without suspending\n");
  (void)co_await hog();
  check(detector.stalls() == 1, "one stall counted", detector.stalls());
  check(detector.reports() == 1, "reported once", detector.reports());
  // Seen from its first tick to its last: the 40 ms less up to two sample
  // periods, plus what the task did around the spin in the same run.
  check(detector.longest_ns() >= kRunNs - 2 * detector.threshold_ns() / 4 &&
            detector.longest_ns() < 10 * kRunNs,
        "longest run seen (ns), about the spin's 40 ms", detector.longest_ns());

  // The hart is back: timers fire again.
  const std::uint64_t before = hal::now_ns();
  (void)co_await async::sleep_for(2 * async::kMillisecond);
  check(hal::now_ns() - before >= 2 * async::kMillisecond, "a 2 ms sleep after the stall (ns)",
        hal::now_ns() - before);
  check(detector.stalls() == 1, "sleeping is no stall, stalls", detector.stalls());
  co_return {};
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& /*boot*/) {
  starling::async::Executor executor;
  auto done = executor.block_on(starling::checks());
  if (!done.ok() || starling::failures != 0) {
    starling::console::print("stall_test: FAIL\n");
    return 1;
  }
  starling::console::print("stall_test: PASS\n");
  return 0;
}
