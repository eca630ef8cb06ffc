#include "kernel/mem/memory_layout.h"

#include "kernel/mem/sv39.h"

namespace starling::mem {
namespace {

constexpr std::uint8_t permission_for(Access access) {
  switch (access) {
    case Access::kRead:
      return sv39::kRead;
    case Access::kWrite:
      return sv39::kWrite;
    case Access::kExecute:
      return sv39::kExecute;
  }
  return 0;
}

constexpr std::string_view verb_for(Access access) {
  switch (access) {
    case Access::kRead:
      return "read from";
    case Access::kWrite:
      return "write to";
    case Access::kExecute:
      return "execute from";
  }
  return "";
}

}  // namespace

std::string_view access_name(Access access) noexcept {
  switch (access) {
    case Access::kRead:
      return "read";
    case Access::kWrite:
      return "write";
    case Access::kExecute:
      return "execute";
  }
  return "?";
}

Result<void> MemoryLayout::add(const Region& region) noexcept {
  if (region.size == 0 || region.size > ~std::uint64_t{0} - region.base) {
    return Unexpected(Error::kInvalidArgument);
  }
  for (const Region& other : regions()) {
    const bool apart =
        region.base + region.size <= other.base || other.base + other.size <= region.base;
    if (!apart) return Unexpected(Error::kInvalidArgument);
  }
  if (count_ == regions_.size()) return Unexpected(Error::kNoMemory);
  // Kept sorted by base: the boot prints them in address order.
  std::size_t at = count_;
  while (at > 0 && regions_[at - 1].base > region.base) {
    regions_[at] = regions_[at - 1];
    --at;
  }
  regions_[at] = region;
  ++count_;
  return {};
}

const Region* MemoryLayout::find(PhysAddr address) const noexcept {
  for (const Region& region : regions()) {
    if (region.contains(address)) return &region;
  }
  return nullptr;
}

FaultCause MemoryLayout::describe(PhysAddr address, Access access) const noexcept {
  if (address < kNullLimit) return {.verb = "", .object = "null pointer"};
  const Region* region = find(address);
  if (region == nullptr) return {.verb = "", .object = "unmapped"};
  if (!region->guard.empty()) return {.verb = "", .object = region->guard};
  if ((region->permissions & permission_for(access)) == 0) {
    return {.verb = verb_for(access), .object = region->name};
  }
  // Mapped with that permission, yet it faulted: the tables and this record
  // disagree (a bug in the boot's map), said as it is.
  return {.verb = "mapped for it, yet faulted:", .object = region->name};
}

}  // namespace starling::mem
