#ifndef STARLING_KERNEL_FDT_PROPERTY_H_
#define STARLING_KERNEL_FDT_PROPERTY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kernel/lib/result.h"

namespace starling::fdt {

// One property of a node: its name and raw value, both views into the blob.
// The decoders check the value's length first: a property's length comes from
// the blob, and the blob may be hostile.
class Property {
 public:
  constexpr Property(std::string_view name, std::span<const std::byte> value, std::size_t offset)
      : name_(name), value_(value), offset_(offset) {}

  constexpr std::string_view name() const { return name_; }
  constexpr std::span<const std::byte> bytes() const { return value_; }
  constexpr std::size_t size() const { return value_.size(); }

  // A single cell (<u32>): exactly 4 bytes, else kMalformed.
  Result<std::uint32_t> as_u32() const;
  // A <u64> (two cells): exactly 8 bytes, else kMalformed.
  Result<std::uint64_t> as_u64() const;
  // A <string>: non-empty, NUL-terminated at its last byte, no NUL inside.
  Result<std::string_view> as_string() const;

  // A <stringlist> (e.g. "compatible"): the index-th string, if the list is
  // well formed up to it (every string NUL-terminated inside the value).
  std::optional<std::string_view> string_at(std::size_t index) const;
  // Whether any string of a well-formed <stringlist> equals `text`.
  bool contains_string(std::string_view text) const;

  // Where this property's token is in the structure block (for
  // DeviceTree's iteration: libfdt's property offset).
  constexpr std::size_t offset() const { return offset_; }

 private:
  std::string_view name_;
  std::span<const std::byte> value_;
  std::size_t offset_;
};

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_PROPERTY_H_
