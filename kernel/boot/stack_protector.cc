// The runtime of -fstack-protector-strong (toolchain/flags.bzl, HARDENING):
// every function with an array or an address-taken local stores
// __stack_chk_guard in its frame on entry and calls __stack_chk_fail if it
// differs on return (a write past a local array ran over it).
#include "kernel/boot/stack_protector.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "kernel/arch/riscv/csr.h"
#include "kernel/hal/entropy.h"
#include "kernel/panic/backtrace.h"
#include "kernel/panic/panic.h"

// Only images that use entropy link a board's source (kernel/hal/entropy.h),
// and its boot_entropy() replaces this one; in the others the canary comes
// from the cycle and time counters instead (said on the console).
namespace starling::hal {
[[gnu::weak]] std::string_view boot_entropy(std::span<std::byte> /*out*/) {
  return {};
}
}  // namespace starling::hal

extern "C" {

// Not zero before boot::seed_stack_protector(): code running before it
// (board set-up, memory) is protected by a fixed value, weaker but not
// nothing. The low byte is zero, as glibc's is, so a string copy running
// over it stops there and cannot write the canary back.
constinit std::uintptr_t __stack_chk_guard = 0x5f3c'a7d1'9e62'b400;

[[noreturn]] void __stack_chk_fail() {
  // "stack smashing detected: canary overwritten in the function at 0x...":
  // its return lands in that function, which the backtrace then names by
  // address at #1 (this function is #0).
  constexpr std::string_view kHead =
      "stack smashing detected: canary overwritten in the function at ";
  static char text[kHead.size() + 18 + 1];
  std::memcpy(text, kHead.data(), kHead.size());
  const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  (void)starling::backtrace::format_hex64(pc, std::span<char, 18>(text + kHead.size(), 18));
  text[kHead.size() + 18] = '\0';
  starling::panic(text);
}

}  // extern "C"

namespace starling::boot {

// Not protected itself: it changes the value its own epilogue would check.
[[gnu::no_stack_protector]] std::string_view seed_stack_protector() {
  std::uint64_t value = 0;
  std::string_view source = "the cycle and time counters (no entropy source in this image)";
  std::byte bytes[sizeof(value)] = {};
  if (const std::string_view from = hal::boot_entropy(bytes); !from.empty()) {
    std::memcpy(&value, bytes, sizeof(value));
    source = from;
  } else {
    value = riscv::csr_read<riscv::Csr::kCycle>() * 0x9e37'79b9'7f4a'7c15ull ^
            riscv::csr_read<riscv::Csr::kTime>();
  }
  __stack_chk_guard = static_cast<std::uintptr_t>(value) & ~std::uintptr_t{0xFF};
  return source;
}

}  // namespace starling::boot
