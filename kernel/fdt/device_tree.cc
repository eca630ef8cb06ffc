#include "kernel/fdt/device_tree.h"

#include "kernel/fdt/big_endian.h"

namespace starling::fdt {
namespace {

constexpr std::size_t field(HeaderField f) {
  return static_cast<std::size_t>(f);
}

// Rounds up to the next token boundary. Offsets here are below 2^32 (they
// come from u32 header fields), so adding 3 cannot wrap a 64-bit size_t.
constexpr std::size_t align_token(std::size_t offset) {
  return (offset + (kStructAlignment - 1)) & ~(kStructAlignment - 1);
}

// Whether [offset, offset + size) lies within [header_size, total). Written
// as subtractions so that no sum of two blob-controlled numbers can wrap.
constexpr bool block_fits(std::size_t offset, std::size_t size, std::size_t header_size,
                          std::size_t total) {
  return offset >= header_size && offset <= total && size <= total - offset;
}

constexpr bool disjoint(std::size_t a_offset, std::size_t a_size, std::size_t b_offset,
                        std::size_t b_size) {
  if (a_size == 0 || b_size == 0) return true;
  // Both blocks already fit the blob, so these ends cannot wrap.
  return a_offset + a_size <= b_offset || b_offset + b_size <= a_offset;
}

// Reads `cells` big-endian cells (at most 2, checked by the caller).
std::uint64_t read_cells(const std::byte* p, std::uint32_t cells) {
  std::uint64_t value = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    value = (value << 32) | load_be32(p + i * sizeof(std::uint32_t));
  }
  return value;
}

}  // namespace

Result<DeviceTree> DeviceTree::open(const void* blob, std::size_t limit) {
  if (blob == nullptr) return Unexpected(Error::kInvalidArgument);
  const auto* base = static_cast<const std::byte*>(blob);
  // The fields every version has must be readable before we trust any.
  if (limit < kHeaderSizeV16) return Unexpected(Error::kMalformed);
  if (load_be32(base + field(HeaderField::kMagic)) != kMagic) return Unexpected(Error::kMalformed);

  const std::uint32_t total = load_be32(base + field(HeaderField::kTotalSize));
  const std::uint32_t version = load_be32(base + field(HeaderField::kVersion));
  const std::uint32_t last_compatible = load_be32(base + field(HeaderField::kLastCompVersion));
  if (version < kMinVersion || last_compatible > kCompatibleVersion) {
    return Unexpected(Error::kMalformed);
  }
  const std::size_t header_size = version >= 17 ? kHeaderSizeV17 : kHeaderSizeV16;
  if (total < header_size || total > limit) return Unexpected(Error::kMalformed);

  const std::size_t struct_offset = load_be32(base + field(HeaderField::kOffDtStruct));
  const std::size_t strings_offset = load_be32(base + field(HeaderField::kOffDtStrings));
  const std::size_t reservations_offset = load_be32(base + field(HeaderField::kOffMemRsvmap));
  const std::size_t strings_size = load_be32(base + field(HeaderField::kSizeDtStrings));
  // Version 16 has no size_dt_struct: the block runs up to the strings
  // block when that follows it (as dtc lays blobs out), else to the end.
  std::size_t struct_end = total;
  if (strings_offset >= struct_offset && strings_offset <= total) struct_end = strings_offset;
  const std::size_t struct_size =
      header_size == kHeaderSizeV17
          ? load_be32(base + field(HeaderField::kSizeDtStruct))
          : (struct_offset <= struct_end ? struct_end - struct_offset : 0);

  if (struct_offset % kStructAlignment != 0 || reservations_offset % kMemRsvAlignment != 0) {
    return Unexpected(Error::kMalformed);
  }
  if (!block_fits(struct_offset, struct_size, header_size, total) ||
      !block_fits(strings_offset, strings_size, header_size, total) ||
      !block_fits(reservations_offset, 0, header_size, total) ||
      !disjoint(struct_offset, struct_size, strings_offset, strings_size)) {
    return Unexpected(Error::kMalformed);
  }

  DeviceTree tree;
  tree.blob_ = std::span<const std::byte>(base, total);
  tree.structure_ = tree.blob_.subspan(struct_offset, struct_size);
  tree.strings_ = tree.blob_.subspan(strings_offset, strings_size);
  tree.version_ = version;
  tree.boot_cpuid_phys_ = load_be32(base + field(HeaderField::kBootCpuidPhys));

  Result<void> reservations = tree.validate_reservations(reservations_offset);
  if (!reservations) return Unexpected(reservations.error());
  const std::size_t reservations_size = (tree.reservation_count_ + 1) * kMemRsvEntrySize;
  if (!disjoint(reservations_offset, reservations_size, struct_offset, struct_size) ||
      !disjoint(reservations_offset, reservations_size, strings_offset, strings_size)) {
    return Unexpected(Error::kMalformed);
  }

  Result<void> structure = tree.validate_structure();
  if (!structure) return Unexpected(structure.error());
  return tree;
}

Result<void> DeviceTree::validate_reservations(std::size_t offset) {
  // Entries up to and including the (0, 0) terminator must lie in the blob.
  reservations_offset_ = offset;
  for (std::size_t count = 0;; ++count) {
    if (offset > blob_.size() || blob_.size() - offset < kMemRsvEntrySize) {
      return Unexpected(Error::kMalformed);
    }
    const std::uint64_t address = load_be64(blob_.data() + offset);
    const std::uint64_t size = load_be64(blob_.data() + offset + sizeof(std::uint64_t));
    if (address == 0 && size == 0) {
      reservation_count_ = count;
      return {};
    }
    offset += kMemRsvEntrySize;
  }
}

std::optional<AddressRange> DeviceTree::memory_reservation(std::size_t index) const {
  if (index >= reservation_count_) return std::nullopt;
  // Validated by open(): every entry before the terminator is inside the blob.
  const std::byte* entry = blob_.data() + reservations_offset_ + index * kMemRsvEntrySize;
  return AddressRange{load_be64(entry), load_be64(entry + sizeof(std::uint64_t))};
}

Result<std::string_view> DeviceTree::string_at(std::uint32_t name_offset) const {
  if (name_offset >= strings_.size()) return Unexpected(Error::kMalformed);
  const std::string_view rest(reinterpret_cast<const char*>(strings_.data()) + name_offset,
                              strings_.size() - name_offset);
  const std::size_t nul = rest.find('\0');
  if (nul == std::string_view::npos) return Unexpected(Error::kMalformed);
  return rest.substr(0, nul);
}

Result<DeviceTree::RawToken> DeviceTree::read_token(std::size_t offset) const {
  const std::size_t size = structure_.size();
  if (offset % kStructAlignment != 0 || offset > size || size - offset < kTokenSize) {
    return Unexpected(Error::kMalformed);
  }
  const std::byte* const base = structure_.data();
  RawToken token;
  token.offset = offset;
  const std::size_t after = offset + kTokenSize;
  switch (static_cast<Token>(load_be32(base + offset))) {
    case Token::kBeginNode: {
      const std::string_view rest(reinterpret_cast<const char*>(base) + after, size - after);
      const std::size_t nul = rest.find('\0');
      if (nul == std::string_view::npos) return Unexpected(Error::kMalformed);
      token.kind = Token::kBeginNode;
      token.name = rest.substr(0, nul);
      token.next = align_token(after + nul + 1);
      break;
    }
    case Token::kProp: {
      constexpr std::size_t kPropHeader = 2 * sizeof(std::uint32_t);  // len, nameoff
      if (size - after < kPropHeader) return Unexpected(Error::kMalformed);
      const std::size_t length = load_be32(base + after);
      const std::uint32_t name_offset = load_be32(base + after + sizeof(std::uint32_t));
      const std::size_t value = after + kPropHeader;
      if (length > size - value) return Unexpected(Error::kMalformed);
      Result<std::string_view> name = string_at(name_offset);
      if (!name) return Unexpected(name.error());
      token.kind = Token::kProp;
      token.name = *name;
      token.value = structure_.subspan(value, length);
      token.next = align_token(value + length);
      break;
    }
    case Token::kEndNode:
    case Token::kNop:
    case Token::kEnd:
      token.kind = static_cast<Token>(load_be32(base + offset));
      token.next = after;
      break;
    default:
      return Unexpected(Error::kMalformed);
  }
  // Padding may end the block only if nothing follows; a later read checks.
  if (token.next > size) return Unexpected(Error::kMalformed);
  return token;
}

Result<void> DeviceTree::validate_structure() {
  // Per open node: whether a child began (properties must precede children,
  // §5.4.2, which is what lets property iteration stop at the first child).
  std::array<bool, kMaxDepth + 1> had_child{};
  std::size_t depth = 0;
  bool seen_root = false;
  // Each token advances the offset by at least 4 bytes, so the loop ends
  // after at most size/4 tokens.
  for (std::size_t offset = 0;;) {
    Result<RawToken> token = read_token(offset);
    if (!token) return Unexpected(token.error());
    switch (token->kind) {
      case Token::kBeginNode:
        if (depth == 0) {
          if (seen_root) return Unexpected(Error::kMalformed);  // a second root
          seen_root = true;
          root_ = Node{token->name, offset, token->next, Node::kNoParent, 0};
        } else {
          had_child[depth] = true;
        }
        if (depth == kMaxDepth) return Unexpected(Error::kMalformed);
        ++depth;
        had_child[depth] = false;
        break;
      case Token::kEndNode:
        if (depth == 0) return Unexpected(Error::kMalformed);
        --depth;
        break;
      case Token::kProp:
        if (depth == 0 || had_child[depth]) return Unexpected(Error::kMalformed);
        break;
      case Token::kNop:
        break;
      case Token::kEnd:
        if (depth != 0 || !seen_root) return Unexpected(Error::kMalformed);
        return {};
    }
    offset = token->next;
  }
}

std::optional<DeviceTree::RawToken> DeviceTree::next_meaningful(std::size_t offset) const {
  for (;;) {
    Result<RawToken> token = read_token(offset);
    if (!token) return std::nullopt;
    if (token->kind != Token::kNop) return *token;
    offset = token->next;
  }
}

std::optional<Node> DeviceTree::node_at(std::size_t offset, std::size_t parent,
                                        std::size_t depth) const {
  Result<RawToken> token = read_token(offset);
  if (!token || token->kind != Token::kBeginNode) return std::nullopt;
  return Node{token->name, offset, token->next, parent, depth};
}

std::optional<Property> DeviceTree::first_property(const Node& node) const {
  std::optional<RawToken> token = next_meaningful(node.contents);
  if (!token || token->kind != Token::kProp) return std::nullopt;
  return Property(token->name, token->value, token->next);
}

std::optional<Property> DeviceTree::next_property(const Property& property) const {
  std::optional<RawToken> token = next_meaningful(property.next_offset());
  if (!token || token->kind != Token::kProp) return std::nullopt;
  return Property(token->name, token->value, token->next);
}

std::optional<Property> DeviceTree::find_property(const Node& node, std::string_view name) const {
  for (std::optional<Property> p = first_property(node); p; p = next_property(*p)) {
    if (p->name() == name) return p;
  }
  return std::nullopt;
}

std::optional<Node> DeviceTree::first_child(const Node& node) const {
  for (std::size_t offset = node.contents;;) {
    std::optional<RawToken> token = next_meaningful(offset);
    if (!token) return std::nullopt;
    if (token->kind == Token::kBeginNode) {
      return Node{token->name, token->offset, token->next, node.offset, node.depth + 1};
    }
    if (token->kind != Token::kProp) return std::nullopt;
    offset = token->next;
  }
}

std::optional<std::size_t> DeviceTree::end_of(const Node& node) const {
  // Skips the node's subtree: its properties, its children, its END_NODE.
  std::size_t open = 1;
  for (std::size_t offset = node.contents;;) {
    std::optional<RawToken> token = next_meaningful(offset);
    if (!token || token->kind == Token::kEnd) return std::nullopt;
    if (token->kind == Token::kBeginNode) ++open;
    if (token->kind == Token::kEndNode && --open == 0) return token->next;
    offset = token->next;
  }
}

std::optional<Node> DeviceTree::next_sibling(const Node& node) const {
  if (node.parent == Node::kNoParent) return std::nullopt;  // one root only
  const std::optional<std::size_t> end = end_of(node);
  if (!end) return std::nullopt;
  std::optional<RawToken> token = next_meaningful(*end);
  if (!token || token->kind != Token::kBeginNode) return std::nullopt;
  return Node{token->name, token->offset, token->next, node.parent, node.depth};
}

std::optional<Node> DeviceTree::parent(const Node& node) const {
  if (node.parent == Node::kNoParent || node.depth == 0) return std::nullopt;
  if (node.depth == 1) return node_at(node.parent, Node::kNoParent, 0);
  // The grandparent is not recorded in a Node: find the parent by walking
  // down from the root along the ancestors of `node.offset`.
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
  const bool has_unit_address = component.find('@') != std::string_view::npos;
  for (std::optional<Node> child = first_child(node); child; child = next_sibling(*child)) {
    if (has_unit_address ? child->name == component : child->base_name() == component) {
      return child;
    }
  }
  return std::nullopt;
}

std::optional<Node> DeviceTree::find_node(std::string_view path) const {
  if (path.empty() || path.front() != '/') return std::nullopt;
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

namespace {

// Two cells hold a u64; more (PCI's three) would need a wider address type.
constexpr std::uint32_t kMaxCells = 2;

}  // namespace

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
