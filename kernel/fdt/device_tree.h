#ifndef STARLING_KERNEL_FDT_DEVICE_TREE_H_
#define STARLING_KERNEL_FDT_DEVICE_TREE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kernel/fdt/format.h"
#include "kernel/fdt/property.h"
#include "kernel/lib/result.h"

namespace starling::fdt {

// A node of the tree. The offsets are positions in the structure block
// (libfdt's node offsets); a Node is a cursor, cheap to copy, and only
// meaningful for the DeviceTree that produced it (a stale or forged Node
// makes iteration stop, not crash: libfdt checks every offset it is given).
struct Node {
  static constexpr std::size_t kNoParent = ~std::size_t{0};

  std::string_view name;           // "memory@80000000"; "" for the root
  std::size_t offset = 0;          // its FDT_BEGIN_NODE token
  std::size_t parent = kNoParent;  // the parent's FDT_BEGIN_NODE token
  std::size_t depth = 0;           // the root is 0

  // The name without its unit address: "memory" for "memory@80000000".
  constexpr std::string_view base_name() const { return name.substr(0, name.find('@')); }
};

// One (address, size) pair: a `reg` entry or a memory reservation.
struct AddressRange {
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

// How many 32-bit cells a `reg` address and size take (§2.3.5), as declared by
// the parent of the node whose `reg` is read.
struct CellCounts {
  std::uint32_t address = kDefaultAddressCells;
  std::uint32_t size = kDefaultSizeCells;
};

// The most of a firmware-provided blob anyone believes its header about
// (QEMU's and U-Boot's trees are tens of KiB): the kernel, board packages
// and applications all open the boot tree with this cap.
inline constexpr std::size_t kMaxFirmwareTreeBytes = 2u << 20;

// A validated, read-only view of a flattened device tree blob, read with
// libfdt (Debian's device-tree-compiler source, toolchain/pins.bzl).
//
// open() checks everything up front: libfdt's fdt_check_full() (header,
// blocks in bounds, every token, name and string reference, nesting, the
// reservation block), then the rules Starling adds on top (see open()), so
// a DeviceTree exists only for a well-formed blob: errors surface once, as
// Error::kMalformed, and iteration afterwards returns plain optionals.
class DeviceTree {
 public:
  // Firmware hands over only a pointer: the header's totalsize says how
  // large the blob is, and `limit` caps what we are willing to believe (the
  // bytes known to be readable there). Nothing past min(totalsize, limit) is
  // read; fewer than a header's bytes, or totalsize > limit, is kMalformed.
  // The blob must be 8-byte aligned (the specification's rule, and
  // libfdt's): a misaligned pointer is kInvalidArgument. On top of libfdt's
  // checks, open() refuses what Starling does not read or cannot bound:
  // versions before 16 or incompatible with 16, blocks that overlap or are
  // misaligned, properties outside a node or after its first child, and
  // nesting deeper than kMaxDepth.
  static Result<DeviceTree> open(const void* blob, std::size_t limit);
  static Result<DeviceTree> open(std::span<const std::byte> blob) {
    return open(blob.data(), blob.size());
  }

  // The whole blob (totalsize bytes), e.g. to reserve its memory.
  std::span<const std::byte> bytes() const { return blob_; }
  std::uint32_t version() const;
  std::uint32_t boot_cpuid_phys() const;

  // The memory reservation block (§5.3), without its (0, 0) terminator.
  std::size_t memory_reservation_count() const { return reservation_count_; }
  std::optional<AddressRange> memory_reservation(std::size_t index) const;

  Node root() const { return root_; }
  std::optional<Node> first_child(const Node& node) const;
  std::optional<Node> next_sibling(const Node& node) const;
  // The node's parent (none for the root).
  std::optional<Node> parent(const Node& node) const;

  std::optional<Property> first_property(const Node& node) const;
  std::optional<Property> next_property(const Property& property) const;
  std::optional<Property> find_property(const Node& node, std::string_view name) const;

  // A node by absolute path. A component with a unit address must match
  // exactly ("/memory@80000000"); one without matches a node of that name
  // with or without a unit address, the first in tree order ("/memory").
  // "/" is the root. Aliases are not resolved.
  std::optional<Node> find_node(std::string_view path) const;

  // The first node after `after` in depth-first order (from the root if
  // none) whose "compatible" list contains `compatible`.
  std::optional<Node> find_compatible(std::string_view compatible,
                                      std::optional<Node> after = std::nullopt) const;
  bool is_compatible(const Node& node, std::string_view compatible) const;

  // The cell counts `node` declares for its children's `reg`; defaults
  // where absent; kMalformed if a count is not a single cell.
  Result<CellCounts> child_cell_counts(const Node& node) const;

  // `reg` entries, decoded with the parent's #address-cells/#size-cells.
  // kNotFound without `reg` (or past its last entry); kMalformed if its
  // length is not a whole number of entries; kUnsupported for cell counts
  // that do not fit 64 bits (more than 2) or an address of 0 cells.
  // Addresses are bus addresses of the parent: `ranges` is not applied
  // (QEMU virt and the JH7110 map their buses 1:1).
  Result<std::size_t> reg_count(const Node& node) const;
  Result<AddressRange> reg(const Node& node, std::size_t index = 0) const;

  // Depth-first, parents before children, in blob order. `visit` returns
  // true to go on, false to stop the walk.
  template <typename Visit>
  void for_each_node(Visit&& visit) const;

 private:
  // A node's `reg` with the cell counts that decode it.
  struct RegLayout {
    CellCounts cells;
    std::span<const std::byte> value;
    std::size_t entry_size = 0;
  };

  DeviceTree() = default;

  const void* fdt() const { return blob_.data(); }
  Result<void> check_layout() const;
  // Also finds the root's offset (the first node).
  Result<void> check_structure(int* root) const;
  std::optional<Node> node_at(int offset, std::size_t parent, std::size_t depth) const;
  std::optional<Property> property_at(int offset) const;
  std::optional<Node> find_child(const Node& node, std::string_view component) const;
  Result<RegLayout> reg_layout(const Node& node) const;

  std::span<const std::byte> blob_;
  std::size_t reservation_count_ = 0;
  Node root_;
};

template <typename Visit>
void DeviceTree::for_each_node(Visit&& visit) const {
  // The path from the root to the current node; open() bounded the depth.
  std::array<Node, kMaxDepth + 1> path{};
  std::size_t top = 0;
  path[0] = root_;
  if (!visit(root_)) return;
  for (;;) {
    if (top < kMaxDepth) {
      if (std::optional<Node> child = first_child(path[top])) {
        if (!visit(*child)) return;
        path[++top] = *child;
        continue;
      }
    }
    // No child: the next sibling of this node or of the nearest ancestor.
    for (;;) {
      if (std::optional<Node> sibling = next_sibling(path[top])) {
        if (!visit(*sibling)) return;
        path[top] = *sibling;
        break;
      }
      if (top == 0) return;
      --top;
    }
  }
}

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_DEVICE_TREE_H_
