#ifndef STARLING_KERNEL_ARCH_RISCV_CLOCK_H_
#define STARLING_KERNEL_ARCH_RISCV_CLOCK_H_

#include <cstdint>

#include "kernel/arch/riscv/trap.h"

// The riscv64 implementation of kernel/hal/clock.h: now_ns() from the `time`
// CSR, cycles() from `cycle`, wake-ups from the S-mode timer (Sstc's stimecmp
// where the hart has it, SBI TIME otherwise), idle() on wfi. What is riscv64
// specific about it is set up here, by the board.
namespace starling::riscv {

// The board's timebase (the DT's /cpus/timebase-frequency): 10 MHz on QEMU
// virt, 4 MHz on the JH7110. Also installs the timer interrupt handler and
// picks Sstc or SBI. Call once, after trap_init(), before any hal:: clock call.
void clock_init(std::uint64_t timebase_hz);

// Called from the timer interrupt after it disarmed the timer (the deadline
// passed). Runs in the trap: it may only mark something ready, e.g. signal the
// executor's timer InterruptSource. nullptr removes it.
void set_wakeup_handler(InterruptHandler handler, void* context);

// True if clock_init() found Sstc (stimecmp usable from S-mode).
bool clock_uses_sstc();

// How many times the timer's compare value was written since boot (with SBI
// TIME, each an ecall into firmware): a wake-up set again to the deadline
// already armed writes nothing.
std::uint64_t timer_programmings();

std::uint64_t timebase_hz();

// Conversions with the board's timebase. ticks_from_ns rounds up, so a wake-up
// is never early; both saturate instead of wrapping.
std::uint64_t ns_from_ticks(std::uint64_t ticks);
std::uint64_t ticks_from_ns(std::uint64_t ns);

}  // namespace starling::riscv

#endif  // STARLING_KERNEL_ARCH_RISCV_CLOCK_H_
