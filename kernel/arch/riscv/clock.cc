#include "kernel/arch/riscv/clock.h"

#include <cstdint>
#include <limits>

#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/hal/clock.h"

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

void read_stimecmp() {
  (void)csr_read<Csr::kStimecmp>();
}

// Where the hart compares: stimecmp directly with Sstc, else an ecall to
// firmware (which programs mtimecmp, or stimecmp itself). Either way a pending
// timer interrupt is cleared once the new value lies in the future.
void arm(std::uint64_t ticks) {
  if (sstc) {
    csr_write<Csr::kStimecmp>(ticks);
  } else {
    sbi::set_timer(ticks);
  }
}

// The deadline passed: masking STIE disarms the timer without an ecall
// (set_wakeup re-enables it). STIP may stay pending; it is masked.
void on_timer_interrupt(void* /*unused*/) {
  disable_interrupt(Interrupt::kTimer);
  if (wakeup_handler != nullptr) {
    wakeup_handler(wakeup_context);
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
    riscv::disable_interrupt(riscv::Interrupt::kTimer);
    riscv::arm(riscv::kNever);
    return;
  }
  riscv::arm(riscv::ticks_from_ns(deadline_ns));
  riscv::enable_interrupt(riscv::Interrupt::kTimer);
}

void idle() {
  riscv::wfi();
  // wfi wakes on an interrupt pending in sie even with sstatus.SIE clear. Open
  // SIE for one instruction so the trap runs the handlers now, then close it:
  // the executor expects to come back masked. One asm block keeps the pair
  // adjacent; "memory" makes the compiler re-read what the handlers wrote.
  asm volatile(
      "csrsi sstatus, 2\n\t"
      "csrci sstatus, 2"
      :
      :
      : "memory");
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
