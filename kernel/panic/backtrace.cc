#include "kernel/panic/backtrace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/console/console.h"
#include "kernel/hal/busy_tick.h"
#include "kernel/text/writer.h"

// From the board's linker script (platform/<board>/linker.ld): the image's
// code, the boot stack [__stack_bottom, __stack_top) above its guard page,
// and the trap stack above it, which a fault from an overflowing stack is
// reported on (kernel/arch/riscv/trap_vector.S).
extern "C" char __image_start[];
extern "C" char __text_end[];
extern "C" char __stack_bottom[];
extern "C" char __trap_stack_top[];

namespace starling::backtrace {
namespace {

// Deep enough for any call chain this kernel has; a corrupt chain that loops
// is cut here at the latest.
constexpr int kMaxFrames = 32;

std::uintptr_t address_of(const char* symbol) {
  return reinterpret_cast<std::uintptr_t>(symbol);
}

bool in_image(std::uint64_t pc) {
  return pc >= address_of(__image_start) && pc < address_of(__text_end);
}

// A frame pointer we may dereference: 8-byte aligned, and both slots below it
// (fp-16, fp-8) inside the boot or the trap stack (adjacent: one range). Not
// the guard page below them: reading it would fault again.
bool on_stack(std::uint64_t fp) {
  return fp % 8 == 0 && fp >= address_of(__stack_bottom) + 16 && fp <= address_of(__trap_stack_top);
}

}  // namespace

std::string_view format_hex64(std::uint64_t value, std::span<char, 18> out) {
  out[0] = '0';
  out[1] = 'x';
  for (std::size_t i = 0; i < 16; ++i) {
    out[17 - i] = text::hex_digit(static_cast<unsigned>(value >> (4 * i)));
  }
  return std::string_view(out.data(), out.size());
}

void print_hex64(std::uint64_t value) {
  std::array<char, 18> text{};
  console::print(format_hex64(value, text));
}

void print_frame(std::string_view prefix, int index, std::uint64_t pc) {
  console::print(prefix);
  console::print("#");
  console::print_dec(index);
  console::print(" ");
  print_hex64(pc);
  console::print("\n");
}

// Frames live higher up the stack than their callees, so each step must move
// fp up; anything else means the chain is corrupt and the walk stops.
void print_chain(std::string_view prefix, int first_index, std::uint64_t fp) {
  for (int index = first_index; index < kMaxFrames && on_stack(fp); ++index) {
    const auto* record = reinterpret_cast<const std::uint64_t*>(fp);
    const std::uint64_t ra = record[-1];
    const std::uint64_t caller_fp = record[-2];
    if (!in_image(ra)) {
      break;
    }
    print_frame(prefix, index, ra);
    if (caller_fp <= fp) {
      break;
    }
    fp = caller_fp;
  }
}

}  // namespace starling::backtrace

namespace starling::hal {

// Frame 0 is where the interrupt hit; the s0 chain then starts in that
// function (if its prologue had run) and gives the callers' return addresses.
// A leaf function has no frame record (-momit-leaf-frame-pointer), so s0 is
// its caller's and the chain starts one caller up: ra is the missing one.
// It is printed apart, not numbered, because in a function that makes calls
// it is only the return point of the last one.
void print_backtrace(std::string_view prefix, const InterruptedAt& where) {
  backtrace::print_frame(prefix, 0, where.pc);
  const bool chain_has_ra = backtrace::on_stack(where.fp) &&
                            reinterpret_cast<const std::uint64_t*>(where.fp)[-1] == where.ra;
  if (backtrace::in_image(where.ra) && !chain_has_ra) {
    console::print(prefix);
    console::print("ra ");
    backtrace::print_hex64(where.ra);
    console::print("\n");
  }
  backtrace::print_chain(prefix, 1, where.fp);
}

}  // namespace starling::hal
