// Board package for QEMU 7.2 `virt` (HARDWARE.md §7).

#include <cstdint>

#include "drivers/uart/ns16550.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/console/console.h"
#include "platform/hal/board.h"

namespace starling::board {
namespace {

// ns16550a, byte-wide registers packed one after another.
constinit Ns16550 uart({.base = 0x1000'0000, .reg_shift = 0, .reg_io_width = 1});

// sifive_test finisher: a 32-bit write of (status << 16) | 0x3333 makes QEMU
// exit with that status (QEMU 7.2 calls exit() directly).
constexpr std::uintptr_t kSifiveTestBase = 0x10'0000;
constexpr std::uint32_t kFinisherFail = 0x3333;

}  // namespace

void init(unsigned long /*dtb: the map above is fixed for this machine*/) { uart.init(); }

void console_write(std::string_view bytes) { uart.write(bytes); }

std::string_view name() { return "qemu-virt"; }

[[noreturn]] void exit(int code) {
  // Measured on QEMU 7.2.22 with its bundled OpenSBI v1.1, booted directly and
  // through U-Boot's booti: SRST shutdown exits QEMU with status 0 whatever the
  // reason (system-failure included), so SRST cannot report a failure. A write
  // to the finisher exits with the status it carries (3 -> $? = 3), so
  // non-zero codes go there first; SRST stays as the fallback.
  if (code != 0) {
    // The host sees only the low 8 bits of an exit status: keep a failure a
    // failure even when code is a multiple of 256.
    const std::uint32_t status = (code & 0xFF) != 0 ? static_cast<std::uint32_t>(code & 0xFF) : 1;
    *reinterpret_cast<volatile std::uint32_t*>(kSifiveTestBase) = (status << 16) | kFinisherFail;
  }
  sbi::shutdown(code == 0 ? sbi::ResetReason::kNone : sbi::ResetReason::kSystemFailure);
  console::print("Starling: shutdown failed, halting\n");
  riscv::halt();
}

}  // namespace starling::board
