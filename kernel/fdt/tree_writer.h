#ifndef STARLING_KERNEL_FDT_TREE_WRITER_H_
#define STARLING_KERNEL_FDT_TREE_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Writes a well-formed flattened device tree with libfdt's sequential-write
// functions (fdt_create ... fdt_finish): the host board's boot tree
// (platform/host/boot.cc) and the trees tests read. Host only (std::vector),
// never linked into a riscv64 kernel. A damaged blob, which libfdt will not
// write, comes from kernel/fdt/blob_builder.h.
namespace starling::fdt {

// Property values in the format's encodings (§2.2.4): <u32> cells
// big-endian, a <stringlist> as NUL-terminated strings one after another.
std::vector<std::byte> encode_cells(std::initializer_list<std::uint32_t> cells);
std::vector<std::byte> encode_strings(std::initializer_list<std::string_view> list);

class TreeWriter {
 public:
  TreeWriter();

  // Reservations (§5.3) come first, before the root node begins.
  TreeWriter& memory_reservation(std::uint64_t address, std::uint64_t size);
  TreeWriter& begin_node(std::string_view name);  // "" for the root
  TreeWriter& end_node();
  TreeWriter& property(std::string_view name, std::span<const std::byte> value);
  TreeWriter& property(std::string_view name, std::initializer_list<std::byte> value) {
    return property(name, std::span(value.begin(), value.size()));
  }
  TreeWriter& property_cells(std::string_view name, std::initializer_list<std::uint32_t> cells);
  TreeWriter& property_string(std::string_view name, std::string_view text);
  TreeWriter& property_strings(std::string_view name, std::initializer_list<std::string_view> list);

  // The blob (version 17, blocks in dtc's order). Every node must be ended;
  // a misuse (a reservation after a node, an unbalanced end_node, a name
  // with a NUL) aborts with libfdt's reason: it is a bug in the caller.
  std::vector<std::byte> finish();

 private:
  // Runs a libfdt call, growing the buffer while it says -FDT_ERR_NOSPACE.
  template <typename Call>
  void run(const char* what, Call&& call);

  std::vector<std::byte> buffer_;
  bool reservations_done_ = false;
};

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_TREE_WRITER_H_
