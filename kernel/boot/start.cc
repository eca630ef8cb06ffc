// The first C++ code to run: entry.S jumps here with a stack and a zeroed .bss.

#include <cstddef>
#include <cstdint>

#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "platform/hal/board.h"

namespace {

using InitFunction = void (*)();

}  // namespace

// Bounds of .init_array, from the linker script.
extern "C" InitFunction __init_array_start[];
extern "C" InitFunction __init_array_end[];

namespace {

// No libc runs constructors for us. The count comes from the addresses, so the
// loop never compares pointers into two different objects.
void run_init_array() {
  const std::size_t count = (reinterpret_cast<std::uintptr_t>(__init_array_end) -
                             reinterpret_cast<std::uintptr_t>(__init_array_start)) /
                            sizeof(InitFunction);
  for (std::size_t i = 0; i < count; ++i) {
    __init_array_start[i]();
  }
}

}  // namespace

extern "C" [[noreturn]] void starling_kernel_start(unsigned long hart_id, unsigned long dtb);

extern "C" [[noreturn]] void starling_kernel_start(unsigned long hart_id, unsigned long dtb) {
  using namespace starling;

  run_init_array();
  board::init(dtb);

  console::print("Starling: booted on ");
  console::print(board::name());
  console::print(", hart ");
  console::print_dec(static_cast<std::int64_t>(hart_id));
  console::print(", dtb ");
  console::print_hex(dtb);
  console::print("\n");

  const int code = starling_app_main(BootInfo{hart_id, dtb});
  board::exit(code);
}
