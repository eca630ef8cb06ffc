#ifndef STARLING_KERNEL_MEM_MEMORY_LAYOUT_H_
#define STARLING_KERNEL_MEM_MEMORY_LAYOUT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

// What lives where in the address space, by name: the image's sections, the
// heap, the frame arena, the device tree, each device, and the guard pages
// left unmapped around them. The boot records it while it builds the page
// tables (kernel/mem/sv39.h) and prints it; a page fault is described from
// it ("write to .text", "execute from the heap", "stack overflow: guard page
// below the stack", "null pointer", "unmapped").
namespace starling::mem {

enum class Access : std::uint8_t { kRead, kWrite, kExecute };

struct Region {
  PhysAddr base = 0;
  std::uint64_t size = 0;
  std::uint8_t permissions = 0;  // sv39::Permission bits; 0 for a guard page
  std::string_view name;         // ".text", "the heap", "uart", ...
  // For a guard page: what touching it means ("stack overflow: guard page
  // below the stack"); empty otherwise.
  std::string_view guard;
  std::uint64_t page_size = 0;  // the largest page used for it (0: a guard)

  static constexpr Region mapped(PhysAddr base, std::uint64_t size, std::uint8_t permissions,
                                 std::string_view name, std::uint64_t page_size = 0) noexcept {
    return {.base = base,
            .size = size,
            .permissions = permissions,
            .name = name,
            .guard = {},
            .page_size = page_size};
  }
  static constexpr Region guard_page(PhysAddr base, std::uint64_t size,
                                     std::string_view what) noexcept {
    return {.base = base,
            .size = size,
            .permissions = 0,
            .name = "guard",
            .guard = what,
            .page_size = 0};
  }

  constexpr bool contains(PhysAddr address) const noexcept {
    return address >= base && address - base < size;
  }
};

// A fault's cause in words, built from fixed pieces (no allocation: it is
// printed from the trap handler).
struct FaultCause {
  std::string_view verb;    // "write to", "execute from", "read from", or empty
  std::string_view object;  // the region's name, a guard's text, "null pointer", "unmapped"
};

// "read", "write", "execute".
std::string_view access_name(Access access) noexcept;

class MemoryLayout {
 public:
  static constexpr std::size_t kCapacity = 48;
  // Addresses below this are a null pointer (plus an offset) when they fault.
  static constexpr PhysAddr kNullLimit = 0x10'0000;  // the first megabyte: never mapped

  // kNoMemory when full; kInvalidArgument for an empty region or one that
  // overlaps a region already recorded.
  Result<void> add(const Region& region) noexcept;

  const Region* find(PhysAddr address) const noexcept;
  std::span<const Region> regions() const noexcept { return std::span(regions_).first(count_); }

  // Why an `access` at `address` faulted, for a page fault's report.
  FaultCause describe(PhysAddr address, Access access) const noexcept;

 private:
  std::array<Region, kCapacity> regions_{};
  std::size_t count_ = 0;
};

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_MEMORY_LAYOUT_H_
