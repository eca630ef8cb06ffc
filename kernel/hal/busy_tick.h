#ifndef STARLING_KERNEL_HAL_BUSY_TICK_H_
#define STARLING_KERNEL_HAL_BUSY_TICK_H_

#include <cstdint>
#include <string_view>

#include "kernel/lib/result.h"

// The busy tick: a timer interrupt that samples whatever the hart is running,
// for the stall detector (kernel/async/stall_detector.h). Tasks are
// cooperative; one that never suspends keeps every other task, the NIC's
// rings and the timers waiting, and only an interrupt can see it happen.
//
// While the tick runs, the hart takes the timer interrupt outside idle() too
// (riscv64: sstatus.SIE open while tasks run, with only STIE in sie; device
// interrupts still wait for idle(), as they always did). It is armed when the
// hart leaves idle() and re-armed by each tick, so an idle hart is never woken
// by it: a busy period pays one timer write when it begins.
namespace starling::hal {

// Where the tick interrupted the hart: the pc, the frame pointer (s0) and
// the return address register, enough for a frame-pointer backtrace. (A
// leaf function, which calls nothing, keeps no frame record of its own:
// -momit-leaf-frame-pointer, toolchain/flags.bzl. Interrupted in one, s0
// is still its caller's, and only ra names that caller.)
struct InterruptedAt {
  std::uint64_t pc = 0;
  std::uint64_t fp = 0;
  std::uint64_t ra = 0;
};

// Runs in the trap, interrupts masked: it may read state and print to the
// console (polled), nothing else.
using BusyTick = void (*)(const InterruptedAt& where, std::uint64_t now_ns);

// Starts the tick (every period_ns while the hart is not idle) or, with
// period_ns 0, stops it. kUnsupported on a board without one (the host board:
// its tasks are a Linux process's, which perf and gdb already see).
Result<void> set_busy_tick(std::uint64_t period_ns, BusyTick tick);

// Prints the interrupted context's backtrace, a line per frame:
//   <prefix>#0 0x<pc>         where it was interrupted
//   <prefix>ra 0x<ra>         the ra register, when it is not the chain's
//                             first return address: #0's caller if #0 is a
//                             leaf function (otherwise a return point
//                             inside #0's own function)
//   <prefix>#1 0x<ra>         and each return address on the frame chain
// The board's way of walking frames (riscv64: the s0 chain on the boot
// stack, as panic reports it); nothing where there is none.
void print_backtrace(std::string_view prefix, const InterruptedAt& where);

}  // namespace starling::hal

#endif  // STARLING_KERNEL_HAL_BUSY_TICK_H_
