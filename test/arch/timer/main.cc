// Timer wake-ups at the configured rate, bare-metal: kWakeups rounds of
// set_wakeup(now + kPeriod) and idle() until the wake-up handler ran. Guest
// time (the `time` CSR) must cover at least kWakeups * kPeriod and stay below
// three times that; no wake-up may come before its deadline.

#include <cstdint>
#include <string_view>

#include "kernel/arch/riscv/clock.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"

namespace {

using namespace starling;

constexpr unsigned kWakeups = 20;
constexpr std::uint64_t kPeriodNs = 10'000'000;  // 10 ms
constexpr unsigned kMaxIdleRounds = 1'000'000;   // a lost interrupt ends the test, not the run

constinit volatile unsigned wakeups = 0;

void on_wakeup(void* /*unused*/) {
  wakeups = wakeups + 1;
}

void print_value(std::string_view label, std::uint64_t value, std::string_view unit) {
  console::print(label);
  console::print_dec(static_cast<std::int64_t>(value));
  console::print(unit);
}

}  // namespace

int starling_app_main(const BootInfo& /*boot*/) {
  console::print(riscv::clock_uses_sstc() ? "timer: using Sstc stimecmp\n"
                                          : "timer: using SBI TIME\n");
  print_value("timer: timebase ", riscv::timebase_hz(), " Hz\n");
  riscv::set_wakeup_handler(&on_wakeup, nullptr);

  unsigned early = 0;
  unsigned idle_rounds = 0;
  std::uint64_t max_late_ns = 0;
  const std::uint64_t start_ticks = riscv::csr_read<riscv::Csr::kTime>();
  const std::uint64_t start_ns = hal::now_ns();
  const std::uint64_t start_cycles = hal::cycles();
  for (unsigned i = 0; i < kWakeups; ++i) {
    const std::uint64_t deadline = hal::now_ns() + kPeriodNs;
    hal::set_wakeup(deadline);
    while (wakeups < i + 1 && idle_rounds < kMaxIdleRounds) {
      hal::idle();
      ++idle_rounds;
    }
    const std::uint64_t now = hal::now_ns();
    if (now < deadline) {
      ++early;
    } else if (now - deadline > max_late_ns) {
      max_late_ns = now - deadline;
    }
  }
  const std::uint64_t elapsed_ns = hal::now_ns() - start_ns;
  const std::uint64_t elapsed_ticks = riscv::csr_read<riscv::Csr::kTime>() - start_ticks;
  const std::uint64_t elapsed_cycles = hal::cycles() - start_cycles;
  const bool masked_after_idle = !hal::mask_interrupts();

  print_value("timer: ", wakeups, " wake-ups");
  print_value(" of ", kPeriodNs / 1000, " us");
  print_value(" took ", elapsed_ns / 1000, " us");
  print_value(" (", elapsed_ticks, " ticks");
  print_value(", ", elapsed_cycles, " cycles)\n");
  print_value("timer: idle rounds ", idle_rounds, "");
  print_value(", early ", early, "");
  print_value(", latest wake-up ", max_late_ns / 1000, " us after its deadline\n");

  // The executor sets its wake-up before every sleep, mostly to the
  // deadline already armed: that writes the compare (an ecall without Sstc)
  // once, not each time; a new deadline and "none" write it again, once.
  const std::uint64_t far = hal::now_ns() + 1'000'000'000;
  const std::uint64_t before = riscv::timer_programmings();
  for (int i = 0; i < 100; ++i) hal::set_wakeup(far);
  const std::uint64_t same_deadline = riscv::timer_programmings() - before;
  hal::set_wakeup(far + kPeriodNs);
  hal::set_wakeup(hal::kNoDeadline);
  hal::set_wakeup(hal::kNoDeadline);
  const std::uint64_t all = riscv::timer_programmings() - before;
  print_value("timer: compare writes: 100 wake-ups at one deadline ", same_deadline, "");
  print_value(", then a new deadline and twice none ", all - same_deadline, "\n");

  const std::uint64_t floor_ns = kWakeups * kPeriodNs;
  const bool ok = wakeups == kWakeups && early == 0 && elapsed_ns >= floor_ns &&
                  elapsed_ns < 3 * floor_ns && masked_after_idle && same_deadline == 1 && all == 3;
  console::print(ok ? "timer: PASS\n" : "timer: FAIL\n");
  return ok ? 0 : 1;
}
