#include "kernel/fdt/blob_builder.h"

#include <cstring>

#include "kernel/fdt/tree_writer.h"

namespace starling::fdt::testing {
namespace {

void append_be32(std::vector<std::byte>& bytes, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    bytes.push_back(static_cast<std::byte>(value >> shift));
  }
}

void append_be64(std::vector<std::byte>& bytes, std::uint64_t value) {
  append_be32(bytes, static_cast<std::uint32_t>(value >> 32));
  append_be32(bytes, static_cast<std::uint32_t>(value));
}

}  // namespace

void store_be32(std::vector<std::byte>& bytes, std::size_t offset, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i) {
    bytes.at(offset + i) = static_cast<std::byte>(value >> (24 - 8 * i));
  }
}

std::uint32_t fetch_be32(const std::vector<std::byte>& bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value = (value << 8) | static_cast<std::uint32_t>(bytes.at(offset + i));
  }
  return value;
}

void BlobBuilder::pad() {
  while (structure_.size() % 4 != 0) structure_.push_back(std::byte{0});
}

std::uint32_t BlobBuilder::string_offset(std::string_view name) {
  // Matches only whole entries, so "reg" never aliases the tail of "interrupts-reg".
  for (std::size_t at = 0; at < strings_.size(); at = strings_.find('\0', at) + 1) {
    if (std::string_view(strings_.c_str() + at) == name) return static_cast<std::uint32_t>(at);
  }
  const auto offset = static_cast<std::uint32_t>(strings_.size());
  strings_.append(name);
  strings_.push_back('\0');
  return offset;
}

BlobBuilder& BlobBuilder::begin_node(std::string_view name) {
  append_be32(structure_, 1);
  for (char c : name) structure_.push_back(static_cast<std::byte>(c));
  structure_.push_back(std::byte{0});
  pad();
  return *this;
}

BlobBuilder& BlobBuilder::end_node() {
  return word(2);
}
BlobBuilder& BlobBuilder::nop() {
  return word(4);
}
BlobBuilder& BlobBuilder::end() {
  return word(9);
}

BlobBuilder& BlobBuilder::property(std::string_view name, const std::vector<std::byte>& value) {
  append_be32(structure_, 3);
  append_be32(structure_, static_cast<std::uint32_t>(value.size()));
  append_be32(structure_, string_offset(name));
  structure_.insert(structure_.end(), value.begin(), value.end());
  pad();
  return *this;
}

BlobBuilder& BlobBuilder::property_cells(std::string_view name,
                                         std::initializer_list<std::uint32_t> cells) {
  return property(name, encode_cells(cells));
}

BlobBuilder& BlobBuilder::property_string(std::string_view name, std::string_view text) {
  return property_strings(name, {text});
}

BlobBuilder& BlobBuilder::property_strings(std::string_view name,
                                           std::initializer_list<std::string_view> list) {
  return property(name, encode_strings(list));
}

BlobBuilder& BlobBuilder::word(std::uint32_t value) {
  append_be32(structure_, value);
  return *this;
}

BlobBuilder& BlobBuilder::bytes(std::string_view raw) {
  for (char c : raw) structure_.push_back(static_cast<std::byte>(c));
  return *this;
}

BlobBuilder& BlobBuilder::memory_reservation(std::uint64_t address, std::uint64_t size) {
  reservations_.emplace_back(address, size);
  return *this;
}

std::vector<std::byte> BlobBuilder::build() const {
  std::vector<std::byte> blob;
  const std::size_t total = strings_offset() + strings_.size();
  append_be32(blob, 0xd00dfeed);
  append_be32(blob, static_cast<std::uint32_t>(total));
  append_be32(blob, static_cast<std::uint32_t>(structure_offset()));
  append_be32(blob, static_cast<std::uint32_t>(strings_offset()));
  append_be32(blob, static_cast<std::uint32_t>(reservations_offset()));
  append_be32(blob, 17);  // version
  append_be32(blob, 16);  // last_comp_version
  append_be32(blob, 0);   // boot_cpuid_phys
  append_be32(blob, static_cast<std::uint32_t>(strings_.size()));
  append_be32(blob, static_cast<std::uint32_t>(structure_.size()));
  for (const auto& [address, size] : reservations_) {
    append_be64(blob, address);
    append_be64(blob, size);
  }
  append_be64(blob, 0);
  append_be64(blob, 0);
  blob.insert(blob.end(), structure_.begin(), structure_.end());
  for (char c : strings_) blob.push_back(static_cast<std::byte>(c));
  return blob;
}

std::vector<std::byte> small_tree() {
  return TreeWriter()
      .begin_node("")
      .property_cells("#address-cells", {2})
      .property_cells("#size-cells", {2})
      .property_string("compatible", "test,board")
      .begin_node("memory@80000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {0, 0x80000000, 0, 0x08000000})
      .end_node()
      .begin_node("chosen")
      .property_string("bootargs", "console=hvc0")
      .end_node()
      .end_node()
      .finish();
}

}  // namespace starling::fdt::testing
