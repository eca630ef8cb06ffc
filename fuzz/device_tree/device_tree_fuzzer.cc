// Fuzzes the flattened device tree reader (kernel/fdt): the blob comes from
// firmware (OpenSBI, U-Boot, QEMU), which the kernel trusts only as far as it
// checks. open() is meant to accept only well-formed blobs, after which every
// accessor must stay inside the blob and terminate; this walks all of them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>

#include "kernel/fdt/chosen.h"
#include "kernel/fdt/device_tree.h"

namespace {

using starling::fdt::DeviceTree;
using starling::fdt::Node;
using starling::fdt::Property;

void check(bool condition) {
  if (!condition) std::abort();
}

// Every accessor that reads through a view must give bytes inside the blob.
void check_inside(const DeviceTree& tree, const void* data, std::size_t size) {
  const auto* begin = tree.bytes().data();
  const auto* p = static_cast<const std::byte*>(data);
  check(p >= begin && p + size <= begin + tree.bytes().size());
}

void walk_properties(const DeviceTree& tree, const Node& node) {
  std::size_t count = 0;
  for (std::optional<Property> property = tree.first_property(node); property;
       property = tree.next_property(*property)) {
    check(++count <= tree.bytes().size());
    check_inside(tree, property->bytes().data(), property->size());
    (void)property->as_u32();
    (void)property->as_u64();
    if (auto text = property->as_string(); text.ok())
      check_inside(tree, text->data(), text->size());
    for (std::size_t i = 0; i < 8; ++i) {
      const auto string = property->string_at(i);
      if (!string) break;
      check_inside(tree, string->data(), string->size());
    }
    (void)property->contains_string("virtio,mmio");
  }
}

void walk_node(const DeviceTree& tree, const Node& node) {
  check(node.depth <= starling::fdt::kMaxDepth);
  check_inside(tree, node.name.data(), node.name.size());
  walk_properties(tree, node);
  if (const auto parent = tree.parent(node)) check(parent->depth + 1 == node.depth);
  (void)tree.child_cell_counts(node);
  (void)tree.is_compatible(node, "ns16550a");
  if (auto count = tree.reg_count(node); count.ok()) {
    for (std::size_t i = 0; i < *count && i < 64; ++i) check(tree.reg(node, i).ok());
    check(!tree.reg(node, *count).ok());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto opened = DeviceTree::open(data, size);
  if (!opened.ok()) return 0;
  const DeviceTree& tree = *opened;
  check(tree.bytes().data() == reinterpret_cast<const std::byte*>(data));
  check(tree.bytes().size() <= size);

  for (std::size_t i = 0; i < tree.memory_reservation_count(); ++i) {
    check(tree.memory_reservation(i).has_value());
  }
  check(!tree.memory_reservation(tree.memory_reservation_count()).has_value());

  std::size_t nodes = 0;
  tree.for_each_node([&](const Node& node) {
    check(++nodes <= tree.bytes().size());
    walk_node(tree, node);
    return true;
  });

  for (const std::string_view path :
       {"/", "/chosen", "/memory", "/cpus/cpu@0", "/soc/serial@10000000", "//", "/a/"}) {
    if (const auto node = tree.find_node(path)) walk_node(tree, *node);
  }
  std::size_t found = 0;
  for (std::optional<Node> node = tree.find_compatible("virtio,mmio"); node;
       node = tree.find_compatible("virtio,mmio", node)) {
    check(++found <= nodes);
  }
  if (auto chosen = starling::fdt::read_chosen(tree); chosen.ok() && chosen->bootargs) {
    check_inside(tree, chosen->bootargs->data(), chosen->bootargs->size());
  }
  return 0;
}
