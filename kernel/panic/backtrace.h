#ifndef STARLING_KERNEL_PANIC_BACKTRACE_H_
#define STARLING_KERNEL_PANIC_BACKTRACE_H_

#include <cstdint>
#include <span>
#include <string_view>

// Frame-pointer backtraces on riscv64, for the panic report and the stall
// detector's (hal::print_backtrace, kernel/hal/busy_tick.h): one line per
// frame, "<prefix>#<index> 0x<16 hex digits>", the pc first where there is
// one, then each return address of the s0 chain (after the pc, an
// interrupted context's ra register as "<prefix>ra 0x...", when the chain
// does not start with it: a leaf function keeps no frame record). Return
// addresses point just after the call; symbolize with `llvm-symbolizer -e
// <image>.elf`.
namespace starling::backtrace {

// 0x + 16 digits: fixed width keeps register dumps aligned and greppable.
void print_hex64(std::uint64_t value);
// The same 18 characters into `out`, for a message built before it is
// printed (no allocation); the view is of `out`.
std::string_view format_hex64(std::uint64_t value, std::span<char, 18> out);

void print_frame(std::string_view prefix, int index, std::uint64_t pc);

// Walks the s0 chain from `fp` (clang's frame record, -fno-omit-frame-pointer
// in every function that calls another: ra at fp-8, the caller's s0 at
// fp-16), numbering frames from first_index.
// Only records on the boot stack are read (tasks are stackless coroutines
// resumed on it), every step must move up the stack and every return address
// must lie in the image: a corrupt chain ends the walk, never faults.
void print_chain(std::string_view prefix, int first_index, std::uint64_t fp);

}  // namespace starling::backtrace

#endif  // STARLING_KERNEL_PANIC_BACKTRACE_H_
