#include "kernel/panic/panic.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/arch/riscv/csr.h"
#include "kernel/console/console.h"
#include "kernel/hal/board.h"

// From the board's linker script: the image, and the boot stack, which starts
// right after .bss and ends at __stack_top (platform/<board>/linker.ld).
extern "C" char __image_start[];
extern "C" char __image_end[];
extern "C" char __bss_end[];
extern "C" char __stack_top[];

namespace starling {
namespace {

// Deep enough for any call chain this kernel has; a corrupt chain that loops
// is cut here at the latest.
constexpr int kMaxFrames = 32;

constinit bool panicking = false;

std::uintptr_t address_of(const char* symbol) {
  return reinterpret_cast<std::uintptr_t>(symbol);
}

// 0x + 16 digits: fixed width keeps register dumps aligned and greppable.
void print_hex64(std::uint64_t value) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::array<char, 18> text{};
  text[0] = '0';
  text[1] = 'x';
  for (std::size_t i = 0; i < 16; ++i) {
    text[17 - i] = kDigits[(value >> (4 * i)) & 0xF];
  }
  console::print(std::string_view(text.data(), text.size()));
}

void print_line(std::string_view text) {
  console::print("PANIC: ");
  console::print(text);
  console::print("\n");
}

void print_frame(int index, std::uint64_t pc) {
  console::print("PANIC: #");
  console::print_dec(index);
  console::print(" ");
  print_hex64(pc);
  console::print("\n");
}

bool in_image(std::uint64_t pc) {
  return pc >= address_of(__image_start) && pc < address_of(__image_end);
}

// A frame pointer we may dereference: 8-byte aligned, and both slots below it
// (fp-16, fp-8) inside the boot stack.
bool on_stack(std::uint64_t fp) {
  return fp % 8 == 0 && fp >= address_of(__bss_end) + 16 && fp <= address_of(__stack_top);
}

// Walks the s0 chain. The RISC-V frame record (clang, -fno-omit-frame-pointer):
// s0 points just above the saved pair, ra at fp-8 and the caller's s0 at fp-16.
// Frames live higher up the stack than their callees, so each step must move
// fp up; anything else means the chain is corrupt and the walk stops.
void print_backtrace(int first_index, std::uint64_t fp) {
  for (int index = first_index; index < kMaxFrames && on_stack(fp); ++index) {
    const auto* record = reinterpret_cast<const std::uint64_t*>(fp);
    const std::uint64_t ra = record[-1];
    const std::uint64_t caller_fp = record[-2];
    if (!in_image(ra)) {
      break;
    }
    print_frame(index, ra);
    if (caller_fp <= fp) {
      break;
    }
    fp = caller_fp;
  }
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
  print_backtrace(0, reinterpret_cast<std::uint64_t>(__builtin_frame_address(0)));
  finish();
}

void panic(const riscv::TrapFrame& frame, const char* why) {
  if (!begin(why)) {
    board::exit(kPanicExitCode);
  }
  console::print("PANIC: scause ");
  print_hex64(frame.scause);
  console::print(" sepc ");
  print_hex64(frame.sepc);
  console::print(" stval ");
  print_hex64(frame.stval);
  console::print("\nPANIC: sstatus ");
  print_hex64(frame.sstatus);
  console::print((frame.sstatus & riscv::kSstatusSpp) != 0 ? " (from S-mode)\n"
                                                           : " (from U-mode)\n");
  for (std::size_t i = 1; i < frame.x.size(); ++i) {
    console::print("PANIC: x");
    console::print_dec(static_cast<std::int64_t>(i));
    console::print(i < 10 ? "  " : " ");
    const std::string_view name = riscv::kRegisterNames[i];
    console::print(name);
    console::print(std::string_view("    ", 5 - name.size()));
    print_hex64(frame.x[i]);
    console::print("\n");
  }
  print_line("backtrace");
  // Frame 0 is where the trap hit; the s0 chain then starts in that function
  // (if its prologue had run) and gives the callers' return addresses.
  print_frame(0, frame.sepc);
  print_backtrace(1, frame.fp());
  finish();
}

}  // namespace starling
