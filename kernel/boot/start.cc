// The first C++ code to run: entry.S jumps here with a stack and a zeroed .bss.

#include <cstddef>
#include <cstdint>

#include "kernel/async/stall_detector.h"
#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/boot/paging.h"
#include "kernel/boot/stack_protector.h"
#include "kernel/console/console.h"
#include "kernel/fdt/chosen.h"
#include "kernel/hal/board.h"
#include "kernel/hal/entropy.h"
#include "kernel/hal/interrupts.h"
#include "kernel/mem/address.h"

namespace {

using InitFunction = void (*)();

}  // namespace

// Does nothing, weakly: a board whose entropy source is slow defines the
// real one (kernel/hal/entropy.h) in the library that an image links only if
// something uses entropy, so only those images wait for it at boot.
namespace starling::hal {
[[gnu::weak]] void prime_entropy() {}
}  // namespace starling::hal

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

  if (auto memory = boot::init_memory(dtb); memory.ok()) {
    console::print("Starling: memory: ");
    console::print_dec(static_cast<std::int64_t>(memory->ram_bytes >> 10));
    console::print(" KiB RAM, ");
    console::print_dec(static_cast<std::int64_t>(memory->reserved_bytes >> 10));
    console::print(" KiB reserved by firmware, ");
    console::print_dec(static_cast<std::int64_t>(memory->free_bytes >> 10));
    console::print(" KiB free (heap ");
    console::print_dec(static_cast<std::int64_t>(memory->heap_bytes >> 10));
    console::print(" KiB, coroutine frames ");
    console::print_dec(static_cast<std::int64_t>(memory->frame_arena_bytes >> 10));
    console::print(" KiB)\n");
    // The MMU on (paging.h): W^X, guard pages, nothing else mapped.
    if (auto paging = boot::enable_paging(dtb); paging.ok()) {
      console::print("Starling: paging on (Sv39): ");
      console::print_dec(static_cast<std::int64_t>(paging->counts.pages_1g));
      console::print(" x 1G, ");
      console::print_dec(static_cast<std::int64_t>(paging->counts.pages_2m));
      console::print(" x 2M, ");
      console::print_dec(static_cast<std::int64_t>(paging->counts.pages_4k));
      console::print(" x 4K pages; tables ");
      console::print_dec(static_cast<std::int64_t>(paging->table_bytes >> 10));
      console::print(" KiB\n");
    } else {
      console::print("Starling: WARNING: paging off (");
      console::print(error_name(paging.error()));
      console::print("): no memory protection\n");
    }
  } else {
    // Keep going: hello needs no heap, and allocations fail cleanly (counted).
    console::print("Starling: WARNING: no memory map from the device tree (");
    console::print(error_name(memory.error()));
    console::print("): running without a heap or memory protection\n");
  }

  if (auto interrupts = board::init_interrupts(hart_id); !interrupts.ok()) {
    console::print("Starling: WARNING: interrupts unavailable on hart ");
    console::print_dec(static_cast<std::int64_t>(hart_id));
    console::print(" (");
    console::print(error_name(interrupts.error()));
    console::print(")\n");
  }

  // Before any task: a slow entropy source's first wait holds up nobody here
  // (kernel/hal/entropy.h).
  hal::prime_entropy();
  // The stack canary from that entropy (stack_protector.h): here, in the one
  // frame that never returns.
  console::print("Starling: stack canary from ");
  console::print(boot::seed_stack_protector());
  console::print("\n");

  // After the interrupt controller: the busy tick changes which interrupts
  // are live while tasks run (kernel/hal/busy_tick.h).
  (void)async::start_stall_detector(
      async::stall_threshold_from_bootargs(fdt::firmware_bootargs(mem::to_pointer(dtb))));

  const int code = starling_app_main(BootInfo{hart_id, dtb});
  board::exit(code);
}
