#ifndef STARLING_KERNEL_FDT_BLOB_BUILDER_H_
#define STARLING_KERNEL_FDT_BLOB_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

// Writes flattened device tree blobs (version 17) token by token, including
// wrong ones, so tests can build exactly the damage they need: libfdt's
// sequential writer (kernel/fdt/tree_writer.h, which well-formed trees come
// from) refuses to. Test only, host only (std::vector).
namespace starling::fdt::testing {

void store_be32(std::vector<std::byte>& bytes, std::size_t offset, std::uint32_t value);
std::uint32_t fetch_be32(const std::vector<std::byte>& bytes, std::size_t offset);

class BlobBuilder {
 public:
  BlobBuilder& begin_node(std::string_view name);
  BlobBuilder& end_node();
  BlobBuilder& property(std::string_view name, const std::vector<std::byte>& value);
  BlobBuilder& property_cells(std::string_view name, std::initializer_list<std::uint32_t> cells);
  BlobBuilder& property_string(std::string_view name, std::string_view text);
  BlobBuilder& property_strings(std::string_view name,
                                std::initializer_list<std::string_view> list);
  BlobBuilder& nop();
  BlobBuilder& end();  // FDT_END; build() does not add one by itself
  // Raw words and bytes in the structure block, for damaged blobs.
  BlobBuilder& word(std::uint32_t value);
  BlobBuilder& bytes(std::string_view raw);
  BlobBuilder& memory_reservation(std::uint64_t address, std::uint64_t size);
  // Offset of `name` in the strings block (added if new).
  std::uint32_t string_offset(std::string_view name);

  // Header, reservation block (+ terminator), structure block, strings block.
  std::vector<std::byte> build() const;

  // Where build() puts the blocks, for tests that patch them.
  static constexpr std::size_t kHeaderSize = 40;
  std::size_t reservations_offset() const { return kHeaderSize; }
  std::size_t structure_offset() const { return kHeaderSize + (reservations_.size() + 1) * 16; }
  std::size_t strings_offset() const { return structure_offset() + structure_.size(); }

 private:
  void pad();

  std::vector<std::byte> structure_;
  std::string strings_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reservations_;
};

// A small well-formed tree used by several tests (written by TreeWriter):
// / { #address-cells=2 #size-cells=2 compatible="test,board"
//     memory@80000000 { device_type="memory" reg=<0x80000000 128MiB> }
//     chosen { bootargs="console=hvc0" } }
std::vector<std::byte> small_tree();

}  // namespace starling::fdt::testing

#endif  // STARLING_KERNEL_FDT_BLOB_BUILDER_H_
