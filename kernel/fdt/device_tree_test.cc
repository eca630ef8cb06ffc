#include "kernel/fdt/device_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/fdt/blob_builder.h"

namespace starling::fdt {
namespace {

using testing::BlobBuilder;

DeviceTree open_or_die(const std::vector<std::byte>& blob) {
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  EXPECT_TRUE(tree.ok()) << error_name(tree.error());
  return *tree;
}

// A board with the shapes real trees have: two memory nodes, a bus with 1/1
// cells, a reserved-memory node, NOPs between tokens.
std::vector<std::byte> board_tree() {
  BlobBuilder b;
  b.memory_reservation(0x8f000000, 0x1000);
  b.nop()
      .begin_node("")
      .property_cells("#address-cells", {2})
      .property_cells("#size-cells", {2})
      .nop()
      .property_strings("compatible", {"vendor,board", "vendor,soc"})
      .begin_node("memory@80000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {0, 0x80000000, 0, 0x04000000})
      .end_node()
      .nop()
      .begin_node("memory@100000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {0x1, 0x00000000, 0, 0x10000000, 0x2, 0x0, 0x0, 0x1000})
      .end_node()
      .begin_node("soc")
      .property_cells("#address-cells", {1})
      .property_cells("#size-cells", {1})
      .property_strings("compatible", {"simple-bus"})
      .begin_node("serial@10000000")
      .property_strings("compatible", {"snps,dw-apb-uart", "ns16550a"})
      .property_cells("reg", {0x10000000, 0x100})
      .end_node()
      .begin_node("serial@10010000")
      .property_strings("compatible", {"ns16550a"})
      .property_cells("reg", {0x10010000, 0x100})
      .end_node()
      .begin_node("odd")
      .property_cells("reg", {1, 2, 3})  // not a whole number of (1, 1) entries
      .end_node()
      .end_node()
      .begin_node("cpus")
      .property_cells("#address-cells", {1})
      .property_cells("#size-cells", {0})
      .begin_node("cpu@0")
      .property_cells("reg", {0})
      .end_node()
      .end_node()
      .begin_node("pci")
      .property_cells("#address-cells", {3})
      .property_cells("#size-cells", {2})
      .begin_node("dev@0")
      .property_cells("reg", {0, 0, 0, 0, 0})
      .end_node()
      .end_node()
      .begin_node("defaults")  // no #address-cells/#size-cells: 2 and 1
      .begin_node("thing@4")
      .property_cells("reg", {0, 4, 0x20})
      .end_node()
      .end_node()
      .end_node()
      // No NOP between the root's end and FDT_END: libfdt's fdt_check_full()
      // refuses one there (MalformedTest.NopAfterRoot).
      .end();
  return b.build();
}

TEST(DeviceTreeTest, OpensSmallTreeAndReadsHeader) {
  const std::vector<std::byte> blob = testing::small_tree();
  const DeviceTree tree = open_or_die(blob);
  EXPECT_EQ(tree.version(), 17u);
  EXPECT_EQ(tree.bytes().size(), blob.size());
  EXPECT_EQ(tree.bytes().data(), blob.data());
  EXPECT_EQ(tree.memory_reservation_count(), 0u);
  EXPECT_EQ(tree.root().name, "");
  EXPECT_EQ(tree.root().depth, 0u);
}

TEST(DeviceTreeTest, NullBlobIsInvalidArgument) {
  EXPECT_EQ(DeviceTree::open(nullptr, 4096).error(), Error::kInvalidArgument);
}

TEST(DeviceTreeTest, LimitLargerThanTotalSizeUsesTotalSize) {
  std::vector<std::byte> blob = testing::small_tree();
  const std::size_t total = blob.size();
  blob.resize(total + 4096, std::byte{0xff});
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(tree->bytes().size(), total);
}

TEST(DeviceTreeTest, MemoryReservations) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  ASSERT_EQ(tree.memory_reservation_count(), 1u);
  const std::optional<AddressRange> r = tree.memory_reservation(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->address, 0x8f000000u);
  EXPECT_EQ(r->size, 0x1000u);
  EXPECT_FALSE(tree.memory_reservation(1));
}

TEST(DeviceTreeTest, IteratesChildrenAndPropertiesInOrderSkippingNops) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  std::vector<std::string> properties;
  for (auto p = tree.first_property(tree.root()); p; p = tree.next_property(*p)) {
    properties.emplace_back(p->name());
  }
  EXPECT_EQ(properties, (std::vector<std::string>{"#address-cells", "#size-cells", "compatible"}));

  std::vector<std::string> children;
  for (auto c = tree.first_child(tree.root()); c; c = tree.next_sibling(*c)) {
    children.emplace_back(c->name);
    EXPECT_EQ(c->depth, 1u);
    EXPECT_EQ(c->parent, tree.root().offset);
  }
  EXPECT_EQ(children, (std::vector<std::string>{"memory@80000000", "memory@100000000", "soc",
                                                "cpus", "pci", "defaults"}));
  EXPECT_FALSE(tree.next_sibling(tree.root()));
}

TEST(DeviceTreeTest, ForEachNodeVisitsDepthFirstAndCanStop) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  std::vector<std::string> names;
  tree.for_each_node([&](const Node& node) {
    names.push_back(std::string(node.depth, '+') + std::string(node.name));
    return true;
  });
  EXPECT_EQ(names,
            (std::vector<std::string>{"", "+memory@80000000", "+memory@100000000", "+soc",
                                      "++serial@10000000", "++serial@10010000", "++odd", "+cpus",
                                      "++cpu@0", "+pci", "++dev@0", "+defaults", "++thing@4"}));
  int visited = 0;
  tree.for_each_node([&](const Node&) { return ++visited < 3; });
  EXPECT_EQ(visited, 3);
}

TEST(DeviceTreeTest, FindNodeByPathWithAndWithoutUnitAddress) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  ASSERT_TRUE(tree.find_node("/"));
  EXPECT_EQ(tree.find_node("/")->offset, tree.root().offset);

  const auto exact = tree.find_node("/memory@100000000");
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->name, "memory@100000000");
  const auto first = tree.find_node("/memory");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "memory@80000000");
  EXPECT_EQ(first->base_name(), "memory");

  const auto serial = tree.find_node("/soc/serial@10010000");
  ASSERT_TRUE(serial);
  EXPECT_EQ(serial->depth, 2u);
  const auto serial_first = tree.find_node("/soc/serial/");
  ASSERT_TRUE(serial_first);
  EXPECT_EQ(serial_first->name, "serial@10000000");

  EXPECT_FALSE(tree.find_node("/memory@90000000"));
  EXPECT_FALSE(tree.find_node("/mem"));
  EXPECT_FALSE(tree.find_node("/soc/serial@10000000/nothing"));
  EXPECT_FALSE(tree.find_node("soc"));  // not absolute: aliases are not resolved
  EXPECT_FALSE(tree.find_node(""));
}

TEST(DeviceTreeTest, RegUsesTheParentsCells) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);

  const auto high = tree.find_node("/memory@100000000");
  ASSERT_TRUE(high);
  ASSERT_TRUE(tree.reg_count(*high).ok());
  EXPECT_EQ(*tree.reg_count(*high), 2u);
  Result<AddressRange> first = tree.reg(*high, 0);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->address, 0x100000000u);
  EXPECT_EQ(first->size, 0x10000000u);
  Result<AddressRange> second = tree.reg(*high, 1);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->address, 0x200000000u);
  EXPECT_EQ(second->size, 0x1000u);
  EXPECT_EQ(tree.reg(*high, 2).error(), Error::kNotFound);

  const auto serial = tree.find_node("/soc/serial@10010000");
  ASSERT_TRUE(serial);
  Result<AddressRange> uart = tree.reg(*serial);
  ASSERT_TRUE(uart.ok());
  EXPECT_EQ(uart->address, 0x10010000u);
  EXPECT_EQ(uart->size, 0x100u);

  const auto cpu = tree.find_node("/cpus/cpu@0");
  ASSERT_TRUE(cpu);
  Result<AddressRange> hart = tree.reg(*cpu);
  ASSERT_TRUE(hart.ok());
  EXPECT_EQ(hart->address, 0u);
  EXPECT_EQ(hart->size, 0u);

  const auto thing = tree.find_node("/defaults/thing");
  ASSERT_TRUE(thing);
  Result<AddressRange> defaults = tree.reg(*thing);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->address, 4u);
  EXPECT_EQ(defaults->size, 0x20u);

  EXPECT_EQ(tree.reg(*tree.find_node("/soc/odd")).error(), Error::kMalformed);
  EXPECT_EQ(tree.reg(*tree.find_node("/pci/dev@0")).error(), Error::kUnsupported);
  EXPECT_EQ(tree.reg(*tree.find_node("/soc")).error(), Error::kNotFound);
  EXPECT_EQ(tree.reg(tree.root()).error(), Error::kNotFound);
}

TEST(DeviceTreeTest, ParentOfDeepNodes) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  const auto serial = tree.find_node("/soc/serial@10000000");
  ASSERT_TRUE(serial);
  const auto soc = tree.parent(*serial);
  ASSERT_TRUE(soc);
  EXPECT_EQ(soc->name, "soc");
  const auto root = tree.parent(*soc);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->offset, tree.root().offset);
  EXPECT_FALSE(tree.parent(*root));
}

TEST(DeviceTreeTest, CompatibleMatching) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  EXPECT_TRUE(tree.is_compatible(tree.root(), "vendor,soc"));
  EXPECT_FALSE(tree.is_compatible(tree.root(), "vendor"));

  const auto first = tree.find_compatible("ns16550a");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "serial@10000000");
  const auto second = tree.find_compatible("ns16550a", first);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->name, "serial@10010000");
  EXPECT_FALSE(tree.find_compatible("ns16550a", second));
  EXPECT_FALSE(tree.find_compatible("ns16550"));
  EXPECT_TRUE(tree.find_compatible("simple-bus"));
}

TEST(DeviceTreeTest, FindProperty) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  const auto cells = tree.find_property(tree.root(), "#size-cells");
  ASSERT_TRUE(cells);
  EXPECT_EQ(*cells->as_u32(), 2u);
  EXPECT_FALSE(tree.find_property(tree.root(), "reg"));
  // Properties of children are not properties of the parent.
  EXPECT_FALSE(tree.find_property(tree.root(), "device_type"));
}

TEST(DeviceTreeTest, ForgedNodeStopsIterationInsteadOfReadingOutside) {
  const std::vector<std::byte> blob = board_tree();
  const DeviceTree tree = open_or_die(blob);
  for (std::size_t offset : {std::size_t{2}, std::size_t{4}, blob.size(), ~std::size_t{0} - 3}) {
    Node forged{"x", offset, tree.root().offset, 1};
    // Whatever these return, ASan proves they stay inside the blob.
    (void)tree.first_property(forged);
    (void)tree.first_child(forged);
    (void)tree.next_sibling(forged);
    (void)tree.parent(forged);
    (void)tree.reg_count(forged);
  }
}

TEST(DeviceTreeTest, Version16HeaderWithoutStructSize) {
  std::vector<std::byte> blob = testing::small_tree();
  testing::store_be32(blob, 20, 16);  // version 16: size_dt_struct is not read
  testing::store_be32(blob, 36, 0xffffffff);
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok()) << error_name(tree.error());
  EXPECT_EQ(tree->version(), 16u);
  EXPECT_TRUE(tree->find_node("/chosen"));
}

}  // namespace
}  // namespace starling::fdt
