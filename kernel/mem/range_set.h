#ifndef STARLING_KERNEL_MEM_RANGE_SET_H_
#define STARLING_KERNEL_MEM_RANGE_SET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

namespace starling::mem {

// A half-open physical range [begin, end).
struct PhysRange {
  PhysAddr begin = 0;
  PhysAddr end = 0;

  // (base, size) as the device tree gives it; nullopt if base + size wraps.
  static constexpr std::optional<PhysRange> from_base_size(PhysAddr base, std::uint64_t size) {
    if (size > ~std::uint64_t{0} - base) return std::nullopt;
    return PhysRange{base, base + size};
  }

  constexpr std::uint64_t size() const { return end - begin; }
  constexpr bool empty() const { return end <= begin; }
  constexpr bool contains(PhysAddr address) const { return begin <= address && address < end; }
  friend constexpr bool operator==(const PhysRange&, const PhysRange&) = default;
};

// A set of physical addresses as sorted, disjoint, non-adjacent ranges, in
// fixed storage (it is built before any allocator exists). Running out of
// slots is Error::kNoMemory and leaves the set as it was.
class RangeSet {
 public:
  static constexpr std::size_t kCapacity = 64;

  // Adds a range, merging it with those it overlaps or touches.
  Result<void> add(PhysRange range);
  // Removes a range; may split one range in two (hence the Result).
  Result<void> subtract(PhysRange range);

  std::span<const PhysRange> ranges() const { return std::span(ranges_).first(count_); }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::uint64_t total_bytes() const;
  bool contains(PhysAddr address) const;
  bool overlaps(PhysRange range) const;

 private:
  void erase(std::size_t index);
  void insert(std::size_t index, PhysRange range);

  std::array<PhysRange, kCapacity> ranges_{};
  std::size_t count_ = 0;
};

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_RANGE_SET_H_
