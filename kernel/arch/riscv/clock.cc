#include "kernel/arch/riscv/clock.h"

#include <cstdint>
#include <limits>

#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/hal/busy_tick.h"
#include "kernel/hal/clock.h"
#include "kernel/lib/result.h"

namespace starling::riscv {
namespace {

constexpr std::uint64_t kNsPerSecond = 1'000'000'000;
constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

constinit std::uint64_t hz = 0;
// Nanoseconds per tick when a tick is a whole number of them (QEMU virt's
// 10 MHz, the JH7110's 4 MHz): now_ns() is then one multiply, not two
// 64-bit divisions and a third for the remainder (~100 guest instructions
// per echoed packet, which asks for the time several times). 0 otherwise.
constinit std::uint64_t ns_per_tick = 0;
// The largest tick count ns_per_tick * ticks does not overflow for.
constinit std::uint64_t ticks_exact_limit = 0;
constinit bool sstc = false;
constinit InterruptHandler wakeup_handler = nullptr;
constinit void* wakeup_context = nullptr;
// The executor's deadline (set_wakeup), in ticks; kNever when none.
constinit std::uint64_t wakeup_ticks = kNever;
// The deadline in nanoseconds that wakeup_ticks was converted from, while
// wakeup_ticks is not kNever. The executor sets its wake-up before every
// sleep, mostly to the deadline it had (lwIP's next timeout did not move):
// the conversion is then skipped. It is three 64-bit divisions, ~15 guest
// instructions a packet but on the U74 up to 66 cycles each (its divider
// makes a bit a cycle: LLVM's SiFive 7 scheduling model), ~200 of the
// ~1,000 cycles a 64-byte packet has at line rate.
constinit std::uint64_t wakeup_ns = 0;
// The busy tick (hal::set_busy_tick): its period in ticks, 0 when off.
constinit std::uint64_t busy_period_ticks = 0;
constinit hal::BusyTick busy_tick = nullptr;

void read_stimecmp() {
  (void)csr_read<Csr::kStimecmp>();
}

// The compare value last written (0 before the first: firmware's is unknown),
// and how many writes there were.
constinit std::uint64_t armed_ticks = 0;
constinit std::uint64_t programmings = 0;

// Where the hart compares: stimecmp directly with Sstc, else an ecall to
// firmware (which programs mtimecmp, or stimecmp itself). Either way a pending
// timer interrupt is cleared once the new value lies in the future. The
// executor sets its wake-up before every sleep, mostly to the deadline it
// had (lwIP's next timeout did not move): the compare already holds it, and
// without Sstc (the Star64's U74) each write is an ecall into firmware, so
// an unchanged value is not written again. An unchanged value in the past
// left its interrupt pending, so nothing is lost.
void arm(std::uint64_t ticks) {
  if (ticks == armed_ticks) return;
  armed_ticks = ticks;
  ++programmings;
  if (sstc) {
    csr_write<Csr::kStimecmp>(ticks);
  } else {
    sbi::set_timer(ticks);
  }
}

// The next busy tick, or the deadline if that comes first.
void arm_busy_tick(std::uint64_t now_ticks) {
  const std::uint64_t tick = now_ticks + busy_period_ticks;
  arm(tick < wakeup_ticks ? tick : wakeup_ticks);
  enable_interrupt(Interrupt::kTimer);
}

// The deadline passed: masking STIE disarms the timer without an ecall
// (set_wakeup re-enables it). STIP may stay pending; it is masked. With the
// busy tick on, a tick outside idle samples what runs and arms the next.
void on_timer_interrupt(void* /*unused*/) {
  const std::uint64_t now = csr_read<Csr::kTime>();
  const bool deadline_passed = now >= wakeup_ticks;
  if (deadline_passed) {
    wakeup_ticks = kNever;
    if (wakeup_handler != nullptr) wakeup_handler(wakeup_context);
  }
  const TrapFrame* frame = interrupted_frame();
  if (busy_period_ticks != 0 && frame != nullptr && !in_idle()) {
    busy_tick({.pc = frame->sepc, .fp = frame->fp(), .ra = frame->ra()}, ns_from_ticks(now));
    arm_busy_tick(now);
    return;
  }
  if (deadline_passed || wakeup_ticks == kNever) {
    disable_interrupt(Interrupt::kTimer);
  } else {
    arm(wakeup_ticks);  // a busy tick came due in idle's window: the deadline stays
  }
}

}  // namespace

void clock_init(std::uint64_t timebase_hz) {
  hz = timebase_hz;
  ns_per_tick = hz != 0 && kNsPerSecond % hz == 0 ? kNsPerSecond / hz : 0;
  ticks_exact_limit = ns_per_tick != 0 ? kNever / ns_per_tick : 0;
  disable_interrupt(Interrupt::kTimer);
  // Sstc is usable only if the hart has it and M-mode set menvcfg.STCE;
  // otherwise reading stimecmp is an illegal instruction, which the probe eats.
  sstc = runs_without_illegal_instruction(&read_stimecmp);
  set_interrupt_handler(Interrupt::kTimer, &on_timer_interrupt, nullptr);
  arm(kNever);
}

void set_wakeup_handler(InterruptHandler handler, void* context) {
  const bool were_enabled = hal::mask_interrupts();
  wakeup_handler = handler;
  wakeup_context = context;
  hal::restore_interrupts(were_enabled);
}

bool clock_uses_sstc() {
  return sstc;
}

std::uint64_t timer_programmings() {
  return programmings;
}

std::uint64_t timebase_hz() {
  return hz;
}

// Split into whole seconds and the remainder so that nothing overflows:
// remainder * 1e9 < hz * 1e9, which fits in 64 bits for any hz below 18 GHz.
std::uint64_t ns_from_ticks(std::uint64_t ticks) {
  if (ticks < ticks_exact_limit) {
    return ticks * ns_per_tick;  // exact: the same value as the division below
  }
  if (hz == 0) {
    return 0;
  }
  const std::uint64_t seconds = ticks / hz;
  if (seconds > kNever / kNsPerSecond) {
    return kNever;
  }
  return seconds * kNsPerSecond + (ticks % hz) * kNsPerSecond / hz;
}

std::uint64_t ticks_from_ns(std::uint64_t ns) {
  const std::uint64_t seconds = ns / kNsPerSecond;
  if (hz != 0 && seconds > kNever / hz) {
    return kNever;
  }
  return seconds * hz + ((ns % kNsPerSecond) * hz + kNsPerSecond - 1) / kNsPerSecond;
}

}  // namespace starling::riscv

namespace starling::hal {

// Counted from the timer's reset (power-on; QEMU's start), not from our entry:
// no boot offset to capture, so it is the same clock before and after init.
std::uint64_t now_ns() {
  return riscv::ns_from_ticks(riscv::csr_read<riscv::Csr::kTime>());
}

std::uint64_t cycles() {
  return riscv::csr_read<riscv::Csr::kCycle>();
}

std::uint64_t instructions() {
  return riscv::csr_read<riscv::Csr::kInstret>();
}

void set_wakeup(std::uint64_t deadline_ns) {
  if (deadline_ns == kNoDeadline) {
    riscv::wakeup_ticks = riscv::kNever;
    riscv::disable_interrupt(riscv::Interrupt::kTimer);
    riscv::arm(riscv::kNever);
    return;
  }
  if (deadline_ns != riscv::wakeup_ns || riscv::wakeup_ticks == riscv::kNever) {
    riscv::wakeup_ticks = riscv::ticks_from_ns(deadline_ns);
    riscv::wakeup_ns = deadline_ns;
  }
  riscv::arm(riscv::wakeup_ticks);
  riscv::enable_interrupt(riscv::Interrupt::kTimer);
}

// The tick's period is a quarter of the stall threshold at most, so arming it
// costs one time read and one compare write when a busy period begins; in
// idle the timer holds only the executor's deadline.
Result<void> set_busy_tick(std::uint64_t period_ns, BusyTick tick) {
  // Masked while the tick's state changes; closed stays the rule without it.
  (void)mask_interrupts();
  if (period_ns == 0 || tick == nullptr) {
    riscv::busy_period_ticks = 0;
    riscv::busy_tick = nullptr;
    riscv::allow_all_outside_idle();
    return {};
  }
  const std::uint64_t period = riscv::ticks_from_ns(period_ns);
  riscv::busy_tick = tick;
  riscv::busy_period_ticks = period != 0 ? period : 1;
  riscv::allow_outside_idle({riscv::Interrupt::kTimer});
  riscv::arm_busy_tick(riscv::csr_read<riscv::Csr::kTime>());
  // From now on tasks run with SIE open: the executor's mask/restore pairs
  // keep its own bookkeeping masked.
  restore_interrupts(true);
  return {};
}

std::uint64_t idle() {
  const bool ticking = riscv::busy_period_ticks != 0;
  if (ticking) riscv::enter_idle();
  const std::uint64_t before = riscv::csr_read<riscv::Csr::kCycle>();
  riscv::wfi();
  const std::uint64_t asleep = riscv::csr_read<riscv::Csr::kCycle>() - before;
  // wfi wakes on an interrupt pending in sie even with sstatus.SIE clear:
  // run the handlers here, masked (riscv::run_pending_interrupts: no trap
  // for a wake-up). One pending without a handler: open SIE for one
  // instruction so the trap takes it and panics with a frame. Either way
  // SIE ends clear, as the executor expects to come back (a caller that
  // idled with it open gets it closed, as before). One asm block keeps the
  // pair adjacent; "memory" makes the compiler re-read what the handlers
  // wrote.
  if (riscv::run_pending_interrupts()) {
    asm volatile("csrci sstatus, 2" : : : "memory");
  } else {
    asm volatile(
        "csrsi sstatus, 2\n\t"
        "csrci sstatus, 2"
        :
        :
        : "memory");
  }
  if (ticking) {
    riscv::leave_idle();
    riscv::arm_busy_tick(riscv::csr_read<riscv::Csr::kTime>());
  }
  return asleep;
}

bool mask_interrupts() {
  return (riscv::csr_read_clear<riscv::Csr::kSstatus>(riscv::kSstatusSie) & riscv::kSstatusSie) !=
         0;
}

void restore_interrupts(bool were_enabled) {
  if (were_enabled) {
    riscv::csr_set<riscv::Csr::kSstatus>(riscv::kSstatusSie);
  }
}

}  // namespace starling::hal
