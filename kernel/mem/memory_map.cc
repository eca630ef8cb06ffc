#include "kernel/mem/memory_map.h"

#include <optional>
#include <string_view>

namespace starling::mem {
namespace {

using fdt::DeviceTree;
using fdt::Node;

// Adds every `reg` entry of `node` to `set`.
Result<void> add_reg(const DeviceTree& tree, const Node& node, RangeSet& set) {
  Result<std::size_t> count = tree.reg_count(node);
  if (!count) {
    if (count.error() == Error::kNotFound) return {};  // no `reg`: nothing to add
    return Unexpected(count.error());
  }
  for (std::size_t i = 0; i < *count; ++i) {
    Result<fdt::AddressRange> reg = tree.reg(node, i);
    if (!reg) return Unexpected(reg.error());
    const std::optional<PhysRange> range = PhysRange::from_base_size(reg->address, reg->size);
    if (!range) return Unexpected(Error::kMalformed);
    Result<void> added = set.add(*range);
    if (!added) return added;
  }
  return {};
}

// §2.3.4: "okay" (or the older "ok") or no status at all means enabled.
bool enabled(const DeviceTree& tree, const Node& node) {
  const std::optional<fdt::Property> status = tree.find_property(node, "status");
  if (!status) return true;
  Result<std::string_view> text = status->as_string();
  return text && (*text == "okay" || *text == "ok");
}

}  // namespace

Result<MemoryMap> read_memory_map(const DeviceTree& tree) {
  MemoryMap map;
  Result<void> status;
  tree.for_each_node([&](const Node& node) {
    const std::optional<fdt::Property> type = tree.find_property(node, "device_type");
    if (!type) return true;
    Result<std::string_view> text = type->as_string();
    if (!text) {
      status = Unexpected(text.error());
      return false;
    }
    if (*text != "memory" || !enabled(tree, node)) return true;
    status = add_reg(tree, node, map.ram);
    return status.ok();
  });
  if (!status) return Unexpected(status.error());

  for (std::size_t i = 0; i < tree.memory_reservation_count(); ++i) {
    const std::optional<fdt::AddressRange> entry = tree.memory_reservation(i);
    if (!entry) return Unexpected(Error::kMalformed);
    const std::optional<PhysRange> range = PhysRange::from_base_size(entry->address, entry->size);
    if (!range) return Unexpected(Error::kMalformed);
    Result<void> added = map.reserved.add(*range);
    if (!added) return Unexpected(added.error());
  }

  if (const std::optional<Node> reserved = tree.find_node("/reserved-memory")) {
    for (auto child = tree.first_child(*reserved); child; child = tree.next_sibling(*child)) {
      Result<void> added = add_reg(tree, *child, map.reserved);
      if (!added) return Unexpected(added.error());
    }
  }
  return map;
}

Result<RangeSet> free_memory(const MemoryMap& map, PhysRange kernel_image, PhysRange device_tree) {
  RangeSet free = map.ram;
  for (const PhysRange& reserved : map.reserved.ranges()) {
    Result<void> cut = free.subtract(reserved);
    if (!cut) return Unexpected(cut.error());
  }
  for (const PhysRange& taken : {kernel_image, device_tree}) {
    Result<void> cut = free.subtract(taken);
    if (!cut) return Unexpected(cut.error());
  }
  return free;
}

}  // namespace starling::mem
