#ifndef STARLING_KERNEL_PANIC_PANIC_H_
#define STARLING_KERNEL_PANIC_PANIC_H_

#include "kernel/arch/riscv/trap_frame.h"

// The end of the line for bugs the kernel cannot recover from. A panic masks
// interrupts, prints a report on the console and ends the run through
// board::exit(kPanicExitCode): on QEMU that is QEMU's exit status.
//
// Every report line starts with "PANIC: ", so a test (or a human) can grep
// them out of a serial log:
//   PANIC: illegal instruction                      <- the reason
//   PANIC: scause 0x...2 sepc 0x... stval 0x...     <- trap panics only
//   PANIC: x1  ra   0x...                           <- x1..x31, trap panics only
//   PANIC: backtrace
//   PANIC: #0 0x...                                 <- trap: sepc; then return addresses
//   PANIC: end
// Return addresses point just after the call; symbolize them with
// `llvm-symbolizer -e <image>.elf` or `llvm-nm -n`.
namespace starling {

inline constexpr int kPanicExitCode = 101;

// A kernel bug detected by code: prints `why` and a backtrace of the caller.
[[noreturn]] void panic(const char* why);

// A trap nobody handles (an exception, an unexpected interrupt): prints `why`
// with the trap CSRs, all registers and a backtrace starting at sepc.
[[noreturn]] void panic(const riscv::TrapFrame& frame, const char* why);

}  // namespace starling

#endif  // STARLING_KERNEL_PANIC_PANIC_H_
