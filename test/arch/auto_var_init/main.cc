// -ftrivial-auto-var-init=zero (toolchain/flags.bzl, HARDENING) as the
// image has it: a local array declared without an initialiser starts at
// zero, not with what an earlier call left in the same stack bytes.
//
// dirty() fills a 1 KiB local with 0xA5 and returns; fresh() then declares
// a 128-byte one in the same stack bytes (both frames hang off the same
// caller) and hands its address to an empty asm that may, for all the
// compiler knows, have written it: reading it afterwards is defined
// behaviour, and without the flag it reads dirty()'s bytes. Only the bytes
// both arrays cover are judged, and there must be enough of them.
#include <cstddef>
#include <cstdint>

#include "kernel/boot/app.h"
#include "kernel/console/console.h"

namespace {

using starling::console::print;

constexpr std::size_t kDirtyBytes = 1024;
constexpr std::size_t kBytes = 128;
constexpr std::size_t kEnoughShared = 64;

struct Seen {
  std::uintptr_t address = 0;
  unsigned char bytes[kBytes] = {};
};

constinit Seen seen;

[[gnu::noinline]] std::uintptr_t dirty() {
  volatile unsigned char bytes[kDirtyBytes];
  for (std::size_t i = 0; i < kDirtyBytes; ++i) bytes[i] = 0xA5;
  // Only the address, as a number, for the overlap check.
  std::uintptr_t where = reinterpret_cast<std::uintptr_t>(&bytes[0]);
  asm volatile("" : "+r"(where));
  return where;
}

[[gnu::noinline]] void fresh() {
  unsigned char bytes[kBytes];
  asm volatile("" : : "r"(bytes) : "memory");
  seen.address = reinterpret_cast<std::uintptr_t>(&bytes[0]);
  for (std::size_t i = 0; i < kBytes; ++i) seen.bytes[i] = bytes[i];
}

}  // namespace

int starling_app_main(const starling::BootInfo&) {
  const std::uintptr_t dirtied = dirty();
  fresh();
  std::size_t shared = 0;
  std::size_t stale = 0;
  for (std::size_t i = 0; i < kBytes; ++i) {
    const std::uintptr_t at = seen.address + i;
    if (at < dirtied || at >= dirtied + kDirtyBytes) continue;
    ++shared;
    if (seen.bytes[i] != 0) ++stale;
  }
  if (shared < kEnoughShared) {
    print("auto_var_init: FAIL: the two frames share too few stack bytes (");
    starling::console::print_hex(dirtied);
    print(", ");
    starling::console::print_hex(seen.address);
    print(")\n");
    return 2;
  }
  if (stale != 0) {
    print("auto_var_init: FAIL: ");
    starling::console::print_dec(static_cast<std::int64_t>(stale));
    print(" bytes of a fresh local held an earlier call's data\n");
    return 1;
  }
  print("auto_var_init: PASS: a fresh local read zero where an earlier call left 0xa5 (");
  starling::console::print_dec(static_cast<std::int64_t>(shared));
  print(" bytes)\n");
  return 0;
}
