// The coroutine runtime on real (emulated) hardware: timer interrupts wake
// sleeping tasks at the configured rate, a timeout cancels a console read
// waiting on the UART interrupt, a scope joins its children, an event hands
// over between tasks, and the executor counts idle cycles. Each check prints
// "runtime: ok ..." or "runtime: FAIL ..."; the exit code is the failure count.

#include <cstdint>

#include "kernel/arch/riscv/trap.h"
#include "kernel/async/event.h"
#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/console/input.h"
#include "kernel/hal/clock.h"

namespace starling {
namespace {

using async::kMillisecond;
using console::print;

constexpr int kSleeps = 20;
constexpr std::uint64_t kSleepNs = 10 * kMillisecond;

int failures = 0;

void check(bool ok, const char* what, std::uint64_t figure, const char* unit) {
  print(ok ? "runtime: ok   " : "runtime: FAIL ");
  print(what);
  print(": ");
  console::print_dec(static_cast<std::int64_t>(figure));
  print(" ");
  print(unit);
  print("\n");
  if (!ok) ++failures;
}

// N sleeps of T ms take at least N*T of guest time, and not wildly more.
async::Task<void> sleep_rate() {
  const std::uint64_t timer_before = riscv::interrupt_count(riscv::Interrupt::kTimer);
  const std::uint64_t start = hal::now_ns();
  for (int i = 0; i < kSleeps; ++i) {
    co_await async::sleep_for(kSleepNs);
  }
  const std::uint64_t elapsed = hal::now_ns() - start;
  const std::uint64_t floor = kSleeps * kSleepNs;
  check(elapsed >= floor && elapsed < 3 * floor,
        "20 sleeps of 10 ms took (us, expect 200000..600000)", elapsed / 1000, "us");
  const std::uint64_t interrupts = riscv::interrupt_count(riscv::Interrupt::kTimer) - timer_before;
  check(interrupts >= kSleeps, "timer interrupts taken for 20 sleeps", interrupts, "interrupts");
  co_return {};
}

// Nobody types: the read waits on the UART interrupt until the timeout
// cancels it, and a second read with a timeout can wait again.
async::Task<void> read_times_out() {
  char buffer[16];
  for (int round = 0; round < 2; ++round) {
    const std::uint64_t start = hal::now_ns();
    auto got = co_await async::with_timeout(console::read(buffer), 30 * kMillisecond);
    const std::uint64_t waited = hal::now_ns() - start;
    check(!got.ok() && got.error() == Error::kTimedOut && waited >= 30 * kMillisecond,
          "console read cancelled by a 30 ms timeout after (us)", waited / 1000, "us");
  }
  co_return {};
}

async::Task<void> child(std::uint64_t delay_ms, int id, int* order, int* next) {
  co_await async::sleep_for(delay_ms * kMillisecond);
  order[(*next)++] = id;
  co_return {};
}

// Children finish in deadline order, and join() waits for all of them.
async::Task<void> scope_joins() {
  int order[3] = {-1, -1, -1};
  int next = 0;
  async::Scope scope;
  (void)scope.spawn(child(15, 2, order, &next));
  (void)scope.spawn(child(5, 0, order, &next));
  (void)scope.spawn(child(10, 1, order, &next));
  auto joined = co_await scope.join();
  check(joined.ok() && next == 3 && order[0] == 0 && order[1] == 1 && order[2] == 2,
        "scope joined children in deadline order, count", static_cast<std::uint64_t>(next),
        "children");
  co_return {};
}

async::Task<void> setter(async::Event* event) {
  co_await async::sleep_for(2 * kMillisecond);
  event->set();
  co_return {};
}

async::Task<void> event_hands_over() {
  async::Event event;
  async::Scope scope;
  (void)scope.spawn(setter(&event));
  co_await event.wait();
  (void)co_await scope.join();
  check(event.is_set(), "event set by another task", 1, "event");
  co_return {};
}

async::Task<int> all(async::Executor& executor) {
  (void)co_await sleep_rate();
  (void)co_await read_times_out();
  (void)co_await scope_joins();
  (void)co_await event_hands_over();
  const std::uint64_t idle = executor.idle_cycles();
  const std::uint64_t total = executor.total_cycles();
  check(idle > 0 && idle <= total, "idle cycles while tasks slept (percent of total)",
        total == 0 ? 0 : idle * 100 / total, "%");
  co_return failures;
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& /*boot*/) {
  starling::async::Executor executor;
  auto failed = executor.block_on(starling::all(executor));
  if (!failed.ok()) {
    starling::console::print("runtime: FAIL the test task itself failed\n");
    return 100;
  }
  starling::console::print(*failed == 0 ? "runtime: all checks passed\n"
                                        : "runtime: some checks failed\n");
  return *failed;
}
