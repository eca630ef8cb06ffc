#include "kernel/lib/cpio.h"

#include <cstdint>

namespace starling::cpio {
namespace {

// newc: "070701", then 13 fields of 8 hex digits, then the name (with its
// NUL) padded to 4 bytes from the header's start, then the data padded to 4.
constexpr std::string_view kMagic = "070701";
constexpr std::size_t kHeaderBytes = 110;
constexpr std::size_t kModeField = 1;
constexpr std::size_t kFileSizeField = 6;
constexpr std::size_t kNameSizeField = 11;
constexpr std::uint32_t kTypeMask = 0170000;
constexpr std::uint32_t kRegular = 0100000;
constexpr std::string_view kTrailer = "TRAILER!!!";

std::optional<std::uint32_t> hex_field(std::span<const std::byte> header, std::size_t field) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    const auto c = static_cast<char>(header[6 + field * 8 + i]);
    std::uint32_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    value = value << 4 | digit;
  }
  return value;
}

constexpr std::size_t pad4(std::size_t n) {
  return (n + 3) & ~std::size_t{3};
}

}  // namespace

std::optional<std::span<const std::byte>> find_file(std::span<const std::byte> archive,
                                                    std::string_view name) {
  std::size_t at = 0;
  while (archive.size() - at >= kHeaderBytes) {
    const auto header = archive.subspan(at, kHeaderBytes);
    const std::string_view magic(reinterpret_cast<const char*>(header.data()), kMagic.size());
    if (magic != kMagic) return std::nullopt;
    const auto mode = hex_field(header, kModeField);
    const auto file_size = hex_field(header, kFileSizeField);
    const auto name_size = hex_field(header, kNameSizeField);
    if (!mode || !file_size || !name_size || *name_size == 0) return std::nullopt;
    const std::size_t name_at = at + kHeaderBytes;
    if (archive.size() - name_at < *name_size) return std::nullopt;
    // The name without its NUL.
    std::string_view entry(reinterpret_cast<const char*>(archive.data() + name_at), *name_size - 1);
    if (entry == kTrailer) return std::nullopt;
    const std::size_t data_at = at + pad4(kHeaderBytes + *name_size);
    if (data_at > archive.size() || archive.size() - data_at < *file_size) return std::nullopt;
    if (entry.starts_with("./")) entry.remove_prefix(2);
    if ((*mode & kTypeMask) == kRegular && entry == name) {
      return archive.subspan(data_at, *file_size);
    }
    at = data_at + pad4(*file_size);
    if (at > archive.size()) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace starling::cpio
