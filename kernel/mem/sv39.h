#ifndef STARLING_KERNEL_MEM_SV39_H_
#define STARLING_KERNEL_MEM_SV39_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

// RISC-V Sv39 page tables (the privileged spec, "Sv39: Page-Based 39-bit
// Virtual-Memory System"), built for one address space that maps physical
// memory at its own address (identity: a pointer stays a physical address,
// mem::to_pointer/to_phys do not change). What is not mapped faults.
//
// Three levels of 512 eight-byte entries, one 4 KiB page each. A leaf may
// sit at any level: a 1 GiB page at the root, a 2 MiB "megapage" one level
// down, a 4 KiB page at the last; map() uses the largest page whose
// alignment and the range allow, so TLB reach stays large where it can.
// Leaves carry A and D set (a hart may fault on a clear one instead of
// setting it: the spec allows both) and G (one address space).
//
// Pure and portable: the tables are plain memory from a TableSource; the
// host tests build them in an array, the boot in pages from the page
// allocator.
namespace starling::mem::sv39 {

enum Permission : std::uint8_t {
  kRead = 1,
  kWrite = 2,
  kExecute = 4,
};

inline constexpr std::uint64_t k4KiB = std::uint64_t{1} << 12;
inline constexpr std::uint64_t k2MiB = std::uint64_t{1} << 21;
inline constexpr std::uint64_t k1GiB = std::uint64_t{1} << 30;
// An identity map only reaches addresses below 2^38: Sv39 addresses above
// must be sign-extensions of bit 38, which a physical address is not.
inline constexpr std::uint64_t kAddressLimit = std::uint64_t{1} << 38;
inline constexpr std::size_t kEntries = 512;

// Where table pages come from: a zeroed, 4 KiB-aligned page of kEntries
// entries, or nullptr when there is none.
struct TableSource {
  std::uint64_t* (*allocate)(void* context) = nullptr;
  void* context = nullptr;
};

struct Counts {
  std::size_t pages_4k = 0;
  std::size_t pages_2m = 0;
  std::size_t pages_1g = 0;
  std::size_t tables = 0;  // table pages in use, the root included
};

struct Leaf {
  std::uint8_t permissions = 0;
  std::uint64_t page_size = 0;
};

class PageTables {
 public:
  explicit PageTables(TableSource source) noexcept : source_(source) {}

  // Maps [base, base + size) at its own address with `permissions`.
  // kInvalidArgument: base or size not 4 KiB-aligned, size 0, the range
  // past kAddressLimit, no permission, or write with execute (W^X: no page
  // is both). kBusy: some page of the range is mapped already (nothing is
  // changed then). kNoMemory: the source ran out of table pages (what was
  // mapped before stays; the boot gives up on paging then).
  Result<void> map(PhysAddr base, std::uint64_t size, std::uint8_t permissions) noexcept;

  // The leaf that maps `address`, if any.
  std::optional<Leaf> lookup(PhysAddr address) const noexcept;

  // satp for these tables: MODE = Sv39 (8), ASID 0, the root's page number.
  // 0 before the first map().
  std::uint64_t satp() const noexcept;

  const Counts& counts() const noexcept { return counts_; }

 private:
  // Checks (install = false) or installs one leaf of `size` at `address`.
  Result<void> leaf(PhysAddr address, std::uint64_t size, std::uint8_t permissions,
                    bool install) noexcept;
  std::uint64_t* new_table() noexcept;

  TableSource source_;
  std::uint64_t* root_ = nullptr;
  Counts counts_;
};

// The largest page map() uses at `address` with `remaining` bytes left.
constexpr std::uint64_t page_size_at(PhysAddr address, std::uint64_t remaining) noexcept {
  if (address % k1GiB == 0 && remaining >= k1GiB) return k1GiB;
  if (address % k2MiB == 0 && remaining >= k2MiB) return k2MiB;
  return k4KiB;
}

}  // namespace starling::mem::sv39

#endif  // STARLING_KERNEL_MEM_SV39_H_
