#include "kernel/fdt/tree_writer.h"

#include <libfdt.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace starling::fdt {
namespace {

// Room for the host board's tree and every test tree without a resize.
constexpr std::size_t kInitialBytes = 4096;

[[noreturn]] void misuse(const char* what, int error) {
  std::fprintf(stderr, "TreeWriter: %s: %s\n", what, fdt_strerror(error));
  std::abort();
}

// libfdt takes NUL-terminated names.
std::string terminated(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) misuse("a name holds a NUL", -FDT_ERR_BADVALUE);
  return std::string(text);
}

}  // namespace

TreeWriter::TreeWriter() : buffer_(kInitialBytes) {
  run("fdt_create", [&] { return fdt_create(buffer_.data(), static_cast<int>(buffer_.size())); });
}

template <typename Call>
void TreeWriter::run(const char* what, Call&& call) {
  for (;;) {
    const int error = call();
    if (error == 0) return;
    if (error != -FDT_ERR_NOSPACE || buffer_.size() > INT_MAX / 2) misuse(what, error);
    // fdt_resize moves the tree into a larger buffer; libfdt's buffers may
    // not overlap, so through a copy.
    std::vector<std::byte> larger(buffer_.size() * 2);
    const int resized = fdt_resize(buffer_.data(), larger.data(), static_cast<int>(larger.size()));
    if (resized != 0) misuse("fdt_resize", resized);
    buffer_.swap(larger);
  }
}

TreeWriter& TreeWriter::memory_reservation(std::uint64_t address, std::uint64_t size) {
  if (reservations_done_) misuse("a reservation after the first node", -FDT_ERR_BADSTATE);
  run("fdt_add_reservemap_entry",
      [&] { return fdt_add_reservemap_entry(buffer_.data(), address, size); });
  return *this;
}

TreeWriter& TreeWriter::begin_node(std::string_view name) {
  if (!reservations_done_) {
    run("fdt_finish_reservemap", [&] { return fdt_finish_reservemap(buffer_.data()); });
    reservations_done_ = true;
  }
  const std::string node = terminated(name);
  run("fdt_begin_node", [&] { return fdt_begin_node(buffer_.data(), node.c_str()); });
  return *this;
}

TreeWriter& TreeWriter::end_node() {
  run("fdt_end_node", [&] { return fdt_end_node(buffer_.data()); });
  return *this;
}

TreeWriter& TreeWriter::property(std::string_view name, std::span<const std::byte> value) {
  if (value.size() > INT_MAX) misuse("a property larger than libfdt takes", -FDT_ERR_BADVALUE);
  const std::string key = terminated(name);
  run("fdt_property", [&] {
    return fdt_property(buffer_.data(), key.c_str(), value.data(), static_cast<int>(value.size()));
  });
  return *this;
}

std::vector<std::byte> encode_cells(std::initializer_list<std::uint32_t> cells) {
  std::vector<std::byte> value;
  for (std::uint32_t cell : cells) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      value.push_back(static_cast<std::byte>(cell >> shift));
    }
  }
  return value;
}

std::vector<std::byte> encode_strings(std::initializer_list<std::string_view> list) {
  std::vector<std::byte> value;
  for (std::string_view text : list) {
    for (char c : text) value.push_back(static_cast<std::byte>(c));
    value.push_back(std::byte{0});
  }
  return value;
}

TreeWriter& TreeWriter::property_cells(std::string_view name,
                                       std::initializer_list<std::uint32_t> cells) {
  return property(name, encode_cells(cells));
}

TreeWriter& TreeWriter::property_string(std::string_view name, std::string_view text) {
  return property_strings(name, {text});
}

TreeWriter& TreeWriter::property_strings(std::string_view name,
                                         std::initializer_list<std::string_view> list) {
  return property(name, encode_strings(list));
}

std::vector<std::byte> TreeWriter::finish() {
  run("fdt_finish", [&] { return fdt_finish(buffer_.data()); });
  // fdt_finish() moved the strings block down to the structure block's end:
  // totalsize is now the blob's size.
  std::vector<std::byte> blob(buffer_.begin(), buffer_.begin() + fdt_totalsize(buffer_.data()));
  return blob;
}

}  // namespace starling::fdt
