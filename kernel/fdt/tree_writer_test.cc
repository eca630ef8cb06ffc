#include "kernel/fdt/tree_writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/fdt/device_tree.h"

namespace starling::fdt {
namespace {

TEST(TreeWriterTest, WritesWhatDeviceTreeReadsBack) {
  const std::vector<std::byte> blob = TreeWriter()
                                          .memory_reservation(0x8f000000, 0x1000)
                                          .begin_node("")
                                          .property_cells("#address-cells", {1})
                                          .property_cells("#size-cells", {1})
                                          .begin_node("serial@10000000")
                                          .property_strings("compatible", {"a,b", "ns16550a"})
                                          .property_cells("reg", {0x10000000, 0x100})
                                          .property("raw", {std::byte{1}, std::byte{2}})
                                          .end_node()
                                          .end_node()
                                          .finish();
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(tree->bytes().size(), blob.size());  // finish() trimmed the buffer
  ASSERT_EQ(tree->memory_reservation_count(), 1u);
  EXPECT_EQ(tree->memory_reservation(0)->address, 0x8f000000u);
  const std::optional<Node> serial = tree->find_compatible("ns16550a");
  ASSERT_TRUE(serial);
  EXPECT_EQ(serial->name, "serial@10000000");
  EXPECT_EQ(tree->reg(*serial)->address, 0x10000000u);
  EXPECT_EQ(tree->find_property(*serial, "raw")->size(), 2u);
}

TEST(TreeWriterTest, GrowsPastItsFirstBuffer) {
  // Well past the 4 KiB it starts with: every libfdt call that runs out of
  // room is retried in a buffer twice the size.
  TreeWriter writer;
  writer.begin_node("");
  for (int i = 0; i < 200; ++i) {
    const std::string name = "node@" + std::to_string(i);
    writer.begin_node(name).property_string("label", std::string(40, 'x')).end_node();
  }
  const std::vector<std::byte> blob = writer.end_node().finish();
  ASSERT_GT(blob.size(), 8192u);
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  std::size_t nodes = 0;
  tree->for_each_node([&](const Node&) { return ++nodes, true; });
  EXPECT_EQ(nodes, 201u);
  EXPECT_TRUE(tree->find_node("/node@199"));
}

TEST(TreeWriterDeathTest, MisuseStopsWithLibfdtsReason) {
  EXPECT_DEATH(TreeWriter().begin_node("").memory_reservation(0, 1), "reservation after");
  EXPECT_DEATH(TreeWriter().begin_node(std::string_view("a\0b", 3)), "NUL");
}

}  // namespace
}  // namespace starling::fdt
