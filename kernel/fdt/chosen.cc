#include "kernel/fdt/chosen.h"

namespace starling::fdt {
namespace {

// An absent property is fine; a present one must be a well-formed string.
Result<std::optional<std::string_view>> optional_string(const DeviceTree& tree, const Node& node,
                                                        std::string_view name) {
  const std::optional<Property> property = tree.find_property(node, name);
  if (!property) return std::optional<std::string_view>();
  Result<std::string_view> text = property->as_string();
  if (!text) return Unexpected(text.error());
  return std::optional<std::string_view>(*text);
}

// linux,initrd-start/-end: one cell or two (bootloaders write either,
// by #address-cells); anything else is malformed.
Result<std::optional<std::uint64_t>> optional_address(const DeviceTree& tree, const Node& node,
                                                      std::string_view name) {
  const std::optional<Property> property = tree.find_property(node, name);
  if (!property) return std::optional<std::uint64_t>();
  if (property->size() == 4) {
    auto v = property->as_u32();
    if (!v) return Unexpected(v.error());
    return std::optional<std::uint64_t>(*v);
  }
  auto v = property->as_u64();
  if (!v) return Unexpected(v.error());
  return std::optional<std::uint64_t>(*v);
}

}  // namespace

Result<Chosen> read_chosen(const DeviceTree& tree) {
  Chosen chosen;
  const std::optional<Node> node = tree.find_node("/chosen");
  if (!node) return chosen;
  Result<std::optional<std::string_view>> bootargs = optional_string(tree, *node, "bootargs");
  if (!bootargs) return Unexpected(bootargs.error());
  Result<std::optional<std::string_view>> stdout_path = optional_string(tree, *node, "stdout-path");
  if (!stdout_path) return Unexpected(stdout_path.error());
  chosen.bootargs = *bootargs;
  chosen.stdout_path = *stdout_path;
  auto start = optional_address(tree, *node, "linux,initrd-start");
  if (!start) return Unexpected(start.error());
  auto end = optional_address(tree, *node, "linux,initrd-end");
  if (!end) return Unexpected(end.error());
  if (*start && *end && **start < **end) chosen.initrd = Chosen::Range{**start, **end};
  return chosen;
}

std::string_view firmware_bootargs(const void* blob) {
  auto tree = DeviceTree::open(blob, kMaxFirmwareTreeBytes);
  if (!tree.ok()) return {};
  auto chosen = read_chosen(*tree);
  if (!chosen.ok() || !chosen->bootargs) return {};
  return *chosen->bootargs;
}

}  // namespace starling::fdt
