// Board package for the Pine64 Star64 (StarFive JH7110; HARDWARE.md §6).

#include "drivers/uart/ns16550.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/console/console.h"
#include "platform/hal/board.h"

namespace starling::board {
namespace {

// UART0 is a DW-APB UART: reg-shift 2, and it answers only 32-bit accesses.
// U-Boot leaves it clocked, out of reset and at 115200 baud from its 24 MHz
// clock, so init() does not touch the divisor.
constinit Ns16550 uart({.base = 0x1000'0000, .reg_shift = 2, .reg_io_width = 4});

}  // namespace

void init(unsigned long /*dtb: the map above is fixed for this board*/) { uart.init(); }

void console_write(std::string_view bytes) { uart.write(bytes); }

std::string_view name() { return "star64"; }

[[noreturn]] void exit(int code) {
  // No sifive_test finisher on real hardware: SBI SRST is the only way out.
  // Drain the UART first: a reset would cut off the bytes still in its FIFO.
  uart.flush();
  sbi::shutdown(code == 0 ? sbi::ResetReason::kNone : sbi::ResetReason::kSystemFailure);
  console::print("Starling: shutdown failed, halting\n");
  riscv::halt();
}

}  // namespace starling::board
