#include "kernel/mem/memory_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "kernel/fdt/device_tree.h"
#include "kernel/fdt/tree_writer.h"

namespace starling::mem {
namespace {

using fdt::DeviceTree;
using fdt::TreeWriter;

constexpr std::uint64_t kMiB = 1024 * 1024;

std::vector<PhysRange> list(const RangeSet& set) {
  return {set.ranges().begin(), set.ranges().end()};
}

std::vector<std::byte> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << path;
  std::vector<char> chars((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

TEST(MemoryMapTest, QemuVirtAfterOpenSbi) {
  const std::vector<std::byte> blob = read_file("kernel/fdt/testdata/qemu_virt.dtb");
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<MemoryMap> map = read_memory_map(*tree);
  ASSERT_TRUE(map.ok()) << error_name(map.error());
  EXPECT_EQ(list(map->ram), (std::vector<PhysRange>{{0x80000000, 0x80000000 + 128 * kMiB}}));
  // OpenSBI's own 512 KiB.
  EXPECT_EQ(list(map->reserved), (std::vector<PhysRange>{{0x80000000, 0x80080000}}));

  // The kernel as QEMU loads it (0x80200000) and the DTB where OpenSBI
  // passes it (0x87e00000), as the README's boot log shows.
  const PhysRange image{0x80200000, 0x80200000 + 300 * 1024};
  const PhysRange dtb{0x87e00000, 0x87e00000 + blob.size()};
  Result<RangeSet> free = free_memory(*map, image, dtb);
  ASSERT_TRUE(free.ok());
  EXPECT_EQ(list(*free),
            (std::vector<PhysRange>{
                {0x80080000, image.begin}, {image.end, dtb.begin}, {dtb.end, 0x88000000}}));
  EXPECT_FALSE(free->overlaps({0x80000000, 0x80080000}));
  EXPECT_EQ(free->total_bytes(), 128 * kMiB - 0x80000 - image.size() - dtb.size());
}

TEST(MemoryMapTest, ReservationsFromBothSourcesAndSeveralBanks) {
  TreeWriter b;
  b.memory_reservation(0x90000000, 0x10000);
  b.begin_node("")
      .property_cells("#address-cells", {2})
      .property_cells("#size-cells", {2})
      .begin_node("memory@80000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {0, 0x80000000, 0, 0x20000000})
      .end_node()
      .begin_node("memory@100000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {1, 0, 0, 0x10000000})
      .end_node()
      .begin_node("memory@200000000")  // disabled: not RAM we may use
      .property_string("device_type", "memory")
      .property_string("status", "disabled")
      .property_cells("reg", {2, 0, 0, 0x10000000})
      .end_node()
      .begin_node("reserved-memory")
      .property_cells("#address-cells", {1})
      .property_cells("#size-cells", {1})
      .begin_node("opensbi@80000000")
      .property_cells("reg", {0x80000000, 0x40000})
      .end_node()
      .begin_node("framebuffer")
      .property_cells("reg", {0xa0000000, 0x100000, 0xa0200000, 0x1000})
      .end_node()
      .begin_node("dynamic")  // size only: nothing fixed to reserve
      .property_cells("size", {0x100000})
      .end_node()
      .end_node()
      .end_node();
  const std::vector<std::byte> blob = b.finish();
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  Result<MemoryMap> map = read_memory_map(*tree);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(list(map->ram),
            (std::vector<PhysRange>{{0x80000000, 0xa0000000}, {0x100000000, 0x110000000}}));
  EXPECT_EQ(list(map->reserved), (std::vector<PhysRange>{{0x80000000, 0x80040000},
                                                         {0x90000000, 0x90010000},
                                                         {0xa0000000, 0xa0100000},
                                                         {0xa0200000, 0xa0201000}}));
  Result<RangeSet> free = free_memory(*map, {0x80200000, 0x80400000}, {0x9f000000, 0x9f002000});
  ASSERT_TRUE(free.ok());
  EXPECT_EQ(list(*free), (std::vector<PhysRange>{{0x80040000, 0x80200000},
                                                 {0x80400000, 0x90000000},
                                                 {0x90010000, 0x9f000000},
                                                 {0x9f002000, 0xa0000000},
                                                 {0x100000000, 0x110000000}}));
}

TEST(MemoryMapTest, WrappingRangeIsMalformed) {
  TreeWriter b;
  b.begin_node("")
      .begin_node("memory@ffffffff00000000")
      .property_string("device_type", "memory")
      .property_cells("reg", {0xffffffff, 0, 0x2})  // 2/1 cells by default
      .end_node()
      .end_node();
  const std::vector<std::byte> blob = b.finish();
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  // 0xffffffff00000000 + 2: fine. Now a size that wraps.
  ASSERT_TRUE(read_memory_map(*tree).ok());

  TreeWriter c;
  c.memory_reservation(0xfffffffffffff000, 0x2000);
  c.begin_node("").end_node();
  const std::vector<std::byte> wraps = c.finish();
  Result<DeviceTree> wrapping = DeviceTree::open(wraps.data(), wraps.size());
  ASSERT_TRUE(wrapping.ok());
  EXPECT_EQ(read_memory_map(*wrapping).error(), Error::kMalformed);
}

TEST(MemoryMapTest, DeviceTypeNotAStringIsMalformed) {
  TreeWriter b;
  b.begin_node("")
      .begin_node("memory")
      .property("device_type", {std::byte{'m'}})
      .end_node()
      .end_node();
  const std::vector<std::byte> blob = b.finish();
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(read_memory_map(*tree).error(), Error::kMalformed);
}

}  // namespace
}  // namespace starling::mem
