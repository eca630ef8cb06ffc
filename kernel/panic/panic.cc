#include "kernel/panic/panic.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/arch/riscv/csr.h"
#include "kernel/console/console.h"
#include "kernel/hal/board.h"
#include "kernel/hal/busy_tick.h"
#include "kernel/panic/backtrace.h"

namespace starling {
namespace {

constexpr std::string_view kPrefix = "PANIC: ";

constinit bool panicking = false;

void print_line(std::string_view text) {
  console::print(kPrefix);
  console::print(text);
  console::print("\n");
}

// Marks the panic as started; false if one already is (a fault while
// reporting a fault): then only the shortest report is safe to attempt.
bool begin(const char* why) {
  riscv::csr_clear<riscv::Csr::kSstatus>(riscv::kSstatusSie);
  if (panicking) {
    console::print("PANIC: panic while panicking: ");
    console::print(why);
    console::print("\n");
    return false;
  }
  panicking = true;
  console::print("\n");
  print_line(why);
  return true;
}

[[noreturn]] void finish() {
  print_line("end");
  board::exit(kPanicExitCode);
}

}  // namespace

void panic(const char* why) {
  if (!begin(why)) {
    board::exit(kPanicExitCode);
  }
  print_line("backtrace");
  // This function's own record: its ra is the caller of panic().
  backtrace::print_chain(kPrefix, 0, reinterpret_cast<std::uint64_t>(__builtin_frame_address(0)));
  finish();
}

void panic(const riscv::TrapFrame& frame, const char* why) {
  if (!begin(why)) {
    board::exit(kPanicExitCode);
  }
  console::print("PANIC: scause ");
  backtrace::print_hex64(frame.scause);
  console::print(" sepc ");
  backtrace::print_hex64(frame.sepc);
  console::print(" stval ");
  backtrace::print_hex64(frame.stval);
  console::print("\nPANIC: sstatus ");
  backtrace::print_hex64(frame.sstatus);
  console::print((frame.sstatus & riscv::kSstatusSpp) != 0 ? " (from S-mode)\n"
                                                           : " (from U-mode)\n");
  for (std::size_t i = 1; i < frame.x.size(); ++i) {
    console::print("PANIC: x");
    console::print_dec(static_cast<std::int64_t>(i));
    console::print(i < 10 ? "  " : " ");
    const std::string_view name = riscv::kRegisterNames[i];
    console::print(name);
    console::print(std::string_view("    ", 5 - name.size()));
    backtrace::print_hex64(frame.x[i]);
    console::print("\n");
  }
  print_line("backtrace");
  // Frame 0 is where the trap hit; the s0 chain then starts in that function
  // (if its prologue had run) and gives the callers' return addresses.
  hal::print_backtrace(kPrefix, {.pc = frame.sepc, .fp = frame.fp(), .ra = frame.ra()});
  finish();
}

}  // namespace starling
