#include "kernel/fdt/device_tree.h"

#include <libfdt.h>

#include <climits>

#include "kernel/fdt/big_endian.h"

namespace starling::fdt {
namespace {

// Reads `cells` big-endian cells (at most 2, checked by the caller).
std::uint64_t read_cells(const std::byte* p, std::uint32_t cells) {
  std::uint64_t value = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    value = (value << 32) | load_be32(p + i * sizeof(std::uint32_t));
  }
  return value;
}

// Whether two blocks [offset, offset + size) share a byte. Both already lie
// inside the blob (libfdt checked), so the ends cannot wrap.
constexpr bool overlap(std::size_t a_offset, std::size_t a_size, std::size_t b_offset,
                       std::size_t b_size) {
  if (a_size == 0 || b_size == 0) return false;
  return a_offset < b_offset + b_size && b_offset < a_offset + a_size;
}

// Two cells hold a u64; more (PCI's three) would need a wider address type.
constexpr std::uint32_t kMaxCells = 2;

// Offsets handed in come from Nodes and Properties, which may be stale or
// forged: anything above INT_MAX is refused before libfdt sees it, and
// libfdt checks the rest (alignment, bounds, the token found there).
std::optional<int> as_offset(std::size_t offset) {
  if (offset > INT_MAX) return std::nullopt;
  return static_cast<int>(offset);
}

}  // namespace

Result<DeviceTree> DeviceTree::open(const void* blob, std::size_t limit) {
  if (blob == nullptr) return Unexpected(Error::kInvalidArgument);
  // libfdt reads headers and tokens in place, as aligned words.
  if (reinterpret_cast<std::uintptr_t>(blob) % kMemRsvAlignment != 0) {
    return Unexpected(Error::kInvalidArgument);
  }
  // The fields every version we read has must be readable before we trust
  // any; then the header's own size claim is capped by what we were given.
  if (limit < kHeaderSizeV16) return Unexpected(Error::kMalformed);
  if (fdt_magic(blob) != FDT_MAGIC) return Unexpected(Error::kMalformed);
  const std::uint32_t total = fdt_totalsize(blob);
  if (total > limit) return Unexpected(Error::kMalformed);
  // Version 16 is the oldest layout read here (libfdt reads from 2, with
  // unaligned properties before 16); a blob must still be readable as 16.
  if (fdt_version(blob) < kMinVersion || fdt_last_comp_version(blob) > kCompatibleVersion) {
    return Unexpected(Error::kMalformed);
  }
  // libfdt loads tokens as aligned words once the header is in bounds.
  if (fdt_off_dt_struct(blob) % kStructAlignment != 0 ||
      fdt_off_mem_rsvmap(blob) % kMemRsvAlignment != 0) {
    return Unexpected(Error::kMalformed);
  }
  if (fdt_check_full(blob, total) != 0) return Unexpected(Error::kMalformed);

  DeviceTree tree;
  tree.blob_ = std::span<const std::byte>(static_cast<const std::byte*>(blob), total);
  const int reservations = fdt_num_mem_rsv(blob);
  if (reservations < 0) return Unexpected(Error::kMalformed);
  tree.reservation_count_ = static_cast<std::size_t>(reservations);
  Result<void> layout = tree.check_layout();
  if (!layout) return Unexpected(layout.error());
  int root = 0;
  Result<void> structure = tree.check_structure(&root);
  if (!structure) return Unexpected(structure.error());
  const std::optional<Node> root_node = tree.node_at(root, Node::kNoParent, 0);
  if (!root_node) return Unexpected(Error::kMalformed);
  tree.root_ = *root_node;
  return tree;
}

Result<void> DeviceTree::check_layout() const {
  // libfdt checked that each block starts inside the blob and, where its size
  // is known, ends there; open() that they are aligned. Starling also wants
  // them apart (a byte that is both a token and a string is a blob written
  // to confuse a reader).
  const std::size_t structure = fdt_off_dt_struct(fdt());
  const std::size_t strings = fdt_off_dt_strings(fdt());
  const std::size_t reservations = fdt_off_mem_rsvmap(fdt());
  // Version 16 has no size_dt_struct: the block runs up to the strings
  // block when that follows it (as dtc lays blobs out), else to the end.
  std::size_t structure_size;
  if (fdt_version(fdt()) >= 17) {
    structure_size = fdt_size_dt_struct(fdt());
  } else {
    const std::size_t end = strings >= structure ? strings : blob_.size();
    structure_size = end - structure;
  }
  const std::size_t strings_size = fdt_size_dt_strings(fdt());
  const std::size_t reservations_size = (reservation_count_ + 1) * kMemRsvEntrySize;
  if (overlap(structure, structure_size, strings, strings_size) ||
      overlap(reservations, reservations_size, structure, structure_size) ||
      overlap(reservations, reservations_size, strings, strings_size)) {
    return Unexpected(Error::kMalformed);
  }
  return {};
}

Result<void> DeviceTree::check_structure(int* root) const {
  // fdt_check_full() proved the tokens well formed and the nodes balanced
  // under at most one root. What it allows and Starling does not: no root
  // at all, properties
  // before the root or after a node's first child (§5.4.2: properties
  // precede children; libfdt's property iteration stops at the first child,
  // so later ones would be invisible), and unbounded nesting (for_each_node
  // keeps the path on the stack).
  std::array<bool, kMaxDepth + 1> had_child{};
  std::size_t depth = 0;
  bool seen_root = false;
  // Each token advances by at least 4 bytes: at most size/4 iterations.
  for (int offset = 0;;) {
    int next = 0;
    switch (fdt_next_tag(fdt(), offset, &next)) {
      case FDT_BEGIN_NODE:
        if (depth == kMaxDepth) return Unexpected(Error::kMalformed);
        if (depth == 0) {
          *root = offset;  // NOPs may precede it
          seen_root = true;
        }
        had_child[depth] = true;
        had_child[++depth] = false;
        break;
      case FDT_END_NODE:
        --depth;  // balanced: checked by fdt_check_full()
        break;
      case FDT_PROP:
        if (depth == 0 || had_child[depth]) return Unexpected(Error::kMalformed);
        break;
      case FDT_NOP:
        break;
      default:  // FDT_END; anything else was refused by fdt_check_full()
        // fdt_check_full() accepts a structure block of FDT_END alone.
        if (!seen_root) return Unexpected(Error::kMalformed);
        return {};
    }
    if (next <= offset) return Unexpected(Error::kMalformed);
    offset = next;
  }
}

std::uint32_t DeviceTree::version() const {
  return fdt_version(fdt());
}

std::uint32_t DeviceTree::boot_cpuid_phys() const {
  return fdt_boot_cpuid_phys(fdt());
}

std::optional<AddressRange> DeviceTree::memory_reservation(std::size_t index) const {
  if (index >= reservation_count_) return std::nullopt;
  AddressRange range;
  if (fdt_get_mem_rsv(fdt(), static_cast<int>(index), &range.address, &range.size) != 0) {
    return std::nullopt;
  }
  return range;
}

std::optional<Node> DeviceTree::node_at(int offset, std::size_t parent, std::size_t depth) const {
  int length = 0;
  const char* name = fdt_get_name(fdt(), offset, &length);
  if (name == nullptr || length < 0) return std::nullopt;
  return Node{std::string_view(name, static_cast<std::size_t>(length)),
              static_cast<std::size_t>(offset), parent, depth};
}

std::optional<Property> DeviceTree::property_at(int offset) const {
  const char* name = nullptr;
  int length = 0;
  const void* value = fdt_getprop_by_offset(fdt(), offset, &name, &length);
  if (value == nullptr || name == nullptr || length < 0) return std::nullopt;
  return Property(name, std::span(static_cast<const std::byte*>(value), length),
                  static_cast<std::size_t>(offset));
}

std::optional<Property> DeviceTree::first_property(const Node& node) const {
  const std::optional<int> at = as_offset(node.offset);
  if (!at) return std::nullopt;
  const int offset = fdt_first_property_offset(fdt(), *at);
  if (offset < 0) return std::nullopt;
  return property_at(offset);
}

std::optional<Property> DeviceTree::next_property(const Property& property) const {
  const std::optional<int> at = as_offset(property.offset());
  if (!at) return std::nullopt;
  const int offset = fdt_next_property_offset(fdt(), *at);
  if (offset < 0) return std::nullopt;
  return property_at(offset);
}

std::optional<Property> DeviceTree::find_property(const Node& node, std::string_view name) const {
  for (std::optional<Property> p = first_property(node); p; p = next_property(*p)) {
    if (p->name() == name) return p;
  }
  return std::nullopt;
}

std::optional<Node> DeviceTree::first_child(const Node& node) const {
  const std::optional<int> at = as_offset(node.offset);
  if (!at) return std::nullopt;
  const int offset = fdt_first_subnode(fdt(), *at);
  if (offset < 0) return std::nullopt;
  return node_at(offset, node.offset, node.depth + 1);
}

std::optional<Node> DeviceTree::next_sibling(const Node& node) const {
  if (node.parent == Node::kNoParent) return std::nullopt;  // one root only
  const std::optional<int> at = as_offset(node.offset);
  if (!at) return std::nullopt;
  const int offset = fdt_next_subnode(fdt(), *at);
  if (offset < 0) return std::nullopt;
  return node_at(offset, node.parent, node.depth);
}

std::optional<Node> DeviceTree::parent(const Node& node) const {
  if (node.parent == Node::kNoParent || node.depth == 0) return std::nullopt;
  const std::optional<int> at = as_offset(node.parent);
  if (!at) return std::nullopt;
  if (node.depth == 1) return node_at(*at, Node::kNoParent, 0);
  // A Node records its parent but not the grandparent, and offsets carry no
  // back links: find the parent by walking down from the root (libfdt's
  // fdt_parent_offset() scans from offset 0, but a blob may put NOPs before
  // its root; it was no faster on malformed_test's walks either).
  std::optional<Node> found;
  for_each_node([&](const Node& candidate) {
    if (candidate.offset == node.parent) {
      found = candidate;
      return false;
    }
    return true;
  });
  return found;
}

std::optional<Node> DeviceTree::find_child(const Node& node, std::string_view component) const {
  // libfdt's rule is the one documented for find_node(): a component
  // without '@' also matches "name@unit".
  const std::optional<int> at = as_offset(node.offset);
  if (!at || component.size() > INT_MAX) return std::nullopt;
  const int offset =
      fdt_subnode_offset_namelen(fdt(), *at, component.data(), static_cast<int>(component.size()));
  if (offset < 0) return std::nullopt;
  return node_at(offset, node.offset, node.depth + 1);
}

std::optional<Node> DeviceTree::find_node(std::string_view path) const {
  if (path.empty() || path.front() != '/') return std::nullopt;
  // Component by component (not fdt_path_offset, which would resolve an
  // alias and not say the depth): each step knows its parent and depth.
  Node node = root_;
  while (!path.empty()) {
    const std::size_t start = path.find_first_not_of('/');
    if (start == std::string_view::npos) break;  // trailing slashes
    path.remove_prefix(start);
    const std::size_t end = path.find('/');
    const std::string_view component = path.substr(0, end);
    path.remove_prefix(component.size());
    std::optional<Node> child = find_child(node, component);
    if (!child) return std::nullopt;
    node = *child;
  }
  return node;
}

bool DeviceTree::is_compatible(const Node& node, std::string_view compatible) const {
  const std::optional<Property> list = find_property(node, "compatible");
  return list && list->contains_string(compatible);
}

std::optional<Node> DeviceTree::find_compatible(std::string_view compatible,
                                                std::optional<Node> after) const {
  bool searching = !after.has_value();
  std::optional<Node> found;
  for_each_node([&](const Node& node) {
    if (!searching) {
      searching = node.offset == after->offset;
      return true;
    }
    if (is_compatible(node, compatible)) {
      found = node;
      return false;
    }
    return true;
  });
  return found;
}

Result<CellCounts> DeviceTree::child_cell_counts(const Node& node) const {
  CellCounts counts;
  if (std::optional<Property> p = find_property(node, "#address-cells")) {
    Result<std::uint32_t> value = p->as_u32();
    if (!value) return Unexpected(value.error());
    counts.address = *value;
  }
  if (std::optional<Property> p = find_property(node, "#size-cells")) {
    Result<std::uint32_t> value = p->as_u32();
    if (!value) return Unexpected(value.error());
    counts.size = *value;
  }
  return counts;
}

Result<DeviceTree::RegLayout> DeviceTree::reg_layout(const Node& node) const {
  const std::optional<Node> up = parent(node);
  if (!up) return Unexpected(Error::kNotFound);
  Result<CellCounts> cells = child_cell_counts(*up);
  if (!cells) return Unexpected(cells.error());
  if (cells->address == 0 || cells->address > kMaxCells || cells->size > kMaxCells) {
    return Unexpected(Error::kUnsupported);
  }
  const std::optional<Property> reg = find_property(node, "reg");
  if (!reg) return Unexpected(Error::kNotFound);
  const std::size_t entry_size = (cells->address + cells->size) * sizeof(std::uint32_t);
  if (reg->size() % entry_size != 0) return Unexpected(Error::kMalformed);
  return RegLayout{*cells, reg->bytes(), entry_size};
}

Result<std::size_t> DeviceTree::reg_count(const Node& node) const {
  Result<RegLayout> layout = reg_layout(node);
  if (!layout) return Unexpected(layout.error());
  return layout->value.size() / layout->entry_size;
}

Result<AddressRange> DeviceTree::reg(const Node& node, std::size_t index) const {
  Result<RegLayout> layout = reg_layout(node);
  if (!layout) return Unexpected(layout.error());
  if (index >= layout->value.size() / layout->entry_size) return Unexpected(Error::kNotFound);
  const std::byte* entry = layout->value.data() + index * layout->entry_size;
  const std::uint32_t address_cells = layout->cells.address;
  return AddressRange{
      read_cells(entry, address_cells),
      read_cells(entry + address_cells * sizeof(std::uint32_t), layout->cells.size)};
}

}  // namespace starling::fdt
