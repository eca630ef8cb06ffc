// Faults on purpose, one kind per boot, chosen by `starling.fault=KIND` on the
// kernel command line: //test/arch:fault_*_qemu_test check that each is
// reported as a page fault that names its cause (kernel/boot/paging.h), with
// a backtrace, and exits as every panic does (101).
//
//   null_read      a read through a null pointer (plus an offset)
//   text_write     a write to the code
//   rodata_write   a write to a string literal
//   heap_execute   a call into bytes on the heap
//   stack_overflow a recursion through the guard page below the stack
//   unmapped_write a write into a gap nothing is mapped at
//   stack_smash    a write past a local array, over the stack canary
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/fdt/chosen.h"
#include "kernel/lib/bootargs.h"
#include "kernel/mem/address.h"

namespace {

using starling::console::print;

// Each noinline, so the backtrace's first frame is the function that faulted.
[[gnu::noinline]] int null_read() {
  return *reinterpret_cast<volatile const int*>(std::uintptr_t{0x18});
}

[[gnu::noinline]] void text_write() {
  *reinterpret_cast<volatile std::uint32_t*>(reinterpret_cast<std::uintptr_t>(&null_read)) = 0;
}

[[gnu::noinline]] void rodata_write(const char* literal) {
  *const_cast<volatile char*>(literal) = 'x';
}

[[gnu::noinline]] void heap_execute() {
  // `ret` (c.jr ra is 0x8082): harmless if it ran; it must not.
  auto* code = new std::uint16_t[2]{0x8082, 0x8082};
  reinterpret_cast<void (*)()>(reinterpret_cast<std::uintptr_t>(code))();
}

// Deeper than any stack this kernel has (1 KiB a frame); the limit only
// keeps the compiler from calling the recursion infinite.
constinit volatile int depth_limit = 1 << 20;

[[gnu::noinline]] int stack_overflow(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth == depth_limit) return 0;
  // Not a tail call: the frame is read after the call returns.
  return stack_overflow(depth + 1) + frame[0];
}

[[gnu::noinline]] void unmapped_write() {
  // QEMU virt's flash and nothing on the Star64: never mapped.
  *reinterpret_cast<volatile std::uint64_t*>(std::uintptr_t{0x2000'0000}) = 1;
}

// How far stack_smash() writes: 8 bytes past its 16-byte array, which is
// where -fstack-protector-strong keeps the canary (arrays go next to it).
constinit volatile std::size_t smash_bytes = 24;

[[gnu::noinline]] void stack_smash() {
  char buffer[16];
  volatile char* p = buffer;
  for (std::size_t i = 0; i < smash_bytes; ++i) p[i] = 'x';
  asm volatile("" : : "r"(buffer) : "memory");
}

}  // namespace

int starling_app_main(const starling::BootInfo& boot) {
  const std::string_view bootargs =
      starling::fdt::firmware_bootargs(starling::mem::to_pointer(boot.dtb));
  const std::string_view kind = starling::bootarg_value(bootargs, "starling.fault").value;
  print("fault_test: ");
  print(kind);
  print("\n");
  if (kind == "null_read") {
    (void)null_read();
  } else if (kind == "text_write") {
    text_write();
  } else if (kind == "rodata_write") {
    rodata_write("a string literal");
  } else if (kind == "heap_execute") {
    heap_execute();
  } else if (kind == "stack_overflow") {
    (void)stack_overflow(0);
  } else if (kind == "unmapped_write") {
    unmapped_write();
  } else if (kind == "stack_smash") {
    stack_smash();
  } else {
    print("fault_test: FAIL: no starling.fault= kind given\n");
    return 2;
  }
  print("fault_test: FAIL: the fault did not stop the kernel\n");
  return 3;
}
