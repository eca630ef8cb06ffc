#include "kernel/fdt/property.h"

#include "kernel/fdt/big_endian.h"

namespace starling::fdt {

Result<std::uint32_t> Property::as_u32() const {
  if (value_.size() != sizeof(std::uint32_t)) return Unexpected(Error::kMalformed);
  return load_be32(value_.data());
}

Result<std::uint64_t> Property::as_u64() const {
  if (value_.size() != sizeof(std::uint64_t)) return Unexpected(Error::kMalformed);
  return load_be64(value_.data());
}

Result<std::string_view> Property::as_string() const {
  if (value_.empty() || value_.back() != std::byte{0}) return Unexpected(Error::kMalformed);
  const std::string_view text(reinterpret_cast<const char*>(value_.data()), value_.size() - 1);
  if (text.find('\0') != std::string_view::npos) return Unexpected(Error::kMalformed);
  return text;
}

std::optional<std::string_view> Property::string_at(std::size_t index) const {
  const std::string_view all(reinterpret_cast<const char*>(value_.data()), value_.size());
  std::size_t start = 0;
  while (start < all.size()) {
    const std::size_t nul = all.find('\0', start);
    // The last string must be terminated inside the value too.
    if (nul == std::string_view::npos) return std::nullopt;
    if (index == 0) return all.substr(start, nul - start);
    --index;
    start = nul + 1;
  }
  return std::nullopt;
}

bool Property::contains_string(std::string_view text) const {
  for (std::size_t i = 0;; ++i) {
    const std::optional<std::string_view> entry = string_at(i);
    if (!entry) return false;
    if (*entry == text) return true;
  }
}

}  // namespace starling::fdt
