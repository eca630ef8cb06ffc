#include "kernel/mem/sv39.h"

namespace starling::mem::sv39 {
namespace {

// Page-table entry bits (privileged spec, Sv39 PTE format).
constexpr std::uint64_t kValid = 1u << 0;
constexpr std::uint64_t kPteRead = 1u << 1;
constexpr std::uint64_t kPteWrite = 1u << 2;
constexpr std::uint64_t kPteExecute = 1u << 3;
constexpr std::uint64_t kGlobal = 1u << 5;
constexpr std::uint64_t kAccessed = 1u << 6;
constexpr std::uint64_t kDirty = 1u << 7;
constexpr unsigned kPpnShift = 10;
constexpr std::uint64_t kPpnMask = (std::uint64_t{1} << 44) - 1;
constexpr std::uint64_t kSatpSv39 = std::uint64_t{8} << 60;

constexpr bool is_leaf(std::uint64_t pte) {
  return (pte & (kPteRead | kPteWrite | kPteExecute)) != 0;
}

constexpr std::uint64_t pte_address(std::uint64_t pte) {
  return ((pte >> kPpnShift) & kPpnMask) << 12;
}

constexpr std::uint64_t pte_for(std::uint64_t address) {
  return (address >> 12) << kPpnShift;
}

// The index into the table of `level` (2: the root) for `address`.
constexpr std::size_t index_at(PhysAddr address, int level) {
  return static_cast<std::size_t>((address >> (12 + 9 * level)) & (kEntries - 1));
}

constexpr int level_of(std::uint64_t page_size) {
  return page_size == k1GiB ? 2 : page_size == k2MiB ? 1 : 0;
}

std::uint64_t* table_at(std::uint64_t pte) {
  return reinterpret_cast<std::uint64_t*>(static_cast<std::uintptr_t>(pte_address(pte)));
}

}  // namespace

std::uint64_t* PageTables::new_table() noexcept {
  if (source_.allocate == nullptr) return nullptr;
  std::uint64_t* table = source_.allocate(source_.context);
  if (table == nullptr) return nullptr;
  for (std::size_t i = 0; i < kEntries; ++i) table[i] = 0;
  ++counts_.tables;
  return table;
}

Result<void> PageTables::leaf(PhysAddr address, std::uint64_t size, std::uint8_t permissions,
                              bool install) noexcept {
  const int target = level_of(size);
  std::uint64_t* table = root_;
  for (int level = 2; level > target; --level) {
    if (table == nullptr) return {};  // checking: nothing mapped below here
    std::uint64_t& entry = table[index_at(address, level)];
    if ((entry & kValid) != 0) {
      if (is_leaf(entry)) return Unexpected(Error::kBusy);  // a larger page covers it
      table = table_at(entry);
      continue;
    }
    if (!install) return {};
    std::uint64_t* next = new_table();
    if (next == nullptr) return Unexpected(Error::kNoMemory);
    entry = pte_for(to_phys(next)) | kValid;
    table = next;
  }
  if (table == nullptr) return {};
  std::uint64_t& entry = table[index_at(address, target)];
  if ((entry & kValid) != 0) return Unexpected(Error::kBusy);  // mapped, or smaller pages under it
  if (!install) return {};
  std::uint64_t flags = kValid | kGlobal | kAccessed | kDirty;
  if ((permissions & kRead) != 0) flags |= kPteRead;
  if ((permissions & kWrite) != 0) flags |= kPteWrite;
  if ((permissions & kExecute) != 0) flags |= kPteExecute;
  entry = pte_for(address) | flags;
  if (target == 2) ++counts_.pages_1g;
  if (target == 1) ++counts_.pages_2m;
  if (target == 0) ++counts_.pages_4k;
  return {};
}

Result<void> PageTables::map(PhysAddr base, std::uint64_t size, std::uint8_t permissions) noexcept {
  const bool writable = (permissions & kWrite) != 0;
  const bool executable = (permissions & kExecute) != 0;
  if (size == 0 || base % k4KiB != 0 || size % k4KiB != 0 || base >= kAddressLimit ||
      size > kAddressLimit - base || (permissions & (kRead | kWrite | kExecute)) == 0 ||
      (permissions & ~(kRead | kWrite | kExecute)) != 0 || (writable && executable)) {
    return Unexpected(Error::kInvalidArgument);
  }
  // A writable or executable page that cannot be read is reserved in Sv39
  // (W without R is; X-only is allowed but nothing here wants it).
  if (writable && (permissions & kRead) == 0) return Unexpected(Error::kInvalidArgument);
  if (root_ == nullptr) {
    root_ = new_table();
    if (root_ == nullptr) return Unexpected(Error::kNoMemory);
  }
  const PhysAddr end = base + size;
  // All of it free first, so that an overlap changes nothing.
  for (PhysAddr at = base; at < end;) {
    const std::uint64_t page = page_size_at(at, end - at);
    if (auto free = leaf(at, page, permissions, false); !free.ok()) return free;
    at += page;
  }
  for (PhysAddr at = base; at < end;) {
    const std::uint64_t page = page_size_at(at, end - at);
    if (auto done = leaf(at, page, permissions, true); !done.ok()) return done;
    at += page;
  }
  return {};
}

std::optional<Leaf> PageTables::lookup(PhysAddr address) const noexcept {
  if (root_ == nullptr || address >= kAddressLimit) return std::nullopt;
  const std::uint64_t* table = root_;
  for (int level = 2; level >= 0; --level) {
    const std::uint64_t entry = table[index_at(address, level)];
    if ((entry & kValid) == 0) return std::nullopt;
    if (is_leaf(entry)) {
      Leaf leaf;
      if ((entry & kPteRead) != 0) leaf.permissions |= kRead;
      if ((entry & kPteWrite) != 0) leaf.permissions |= kWrite;
      if ((entry & kPteExecute) != 0) leaf.permissions |= kExecute;
      leaf.page_size = level == 2 ? k1GiB : level == 1 ? k2MiB : k4KiB;
      return leaf;
    }
    table = table_at(entry);
  }
  return std::nullopt;
}

std::uint64_t PageTables::satp() const noexcept {
  if (root_ == nullptr) return 0;
  return kSatpSv39 | (to_phys(root_) >> 12);
}

}  // namespace starling::mem::sv39
