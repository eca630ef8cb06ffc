// The device trees QEMU 7.2's virt machine (-m 128M -smp 1) hands over, read
// with the same code the kernel runs: testdata/README.md says how they were
// captured.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "kernel/fdt/chosen.h"
#include "kernel/fdt/device_tree.h"

namespace starling::fdt {
namespace {

// Runfiles paths, relative to the test's working directory.
constexpr const char* kBootedDtb = "kernel/fdt/testdata/qemu_virt.dtb";
constexpr const char* kDumpedDtb = "kernel/fdt/testdata/qemu_virt_dumpdtb.dtb";

// Counted independently by a small Python walker over qemu_virt.dtb.
constexpr int kExpectedNodes = 32;
constexpr int kExpectedProperties = 119;

std::vector<std::byte> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << path;
  std::vector<char> chars((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

class QemuVirtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    blob_ = read_file(kBootedDtb);
    ASSERT_GT(blob_.size(), 1000u);
    Result<DeviceTree> tree = DeviceTree::open(blob_.data(), blob_.size());
    ASSERT_TRUE(tree.ok()) << error_name(tree.error());
    tree_.emplace(*tree);
  }

  std::vector<std::byte> blob_;
  std::optional<DeviceTree> tree_;
};

TEST_F(QemuVirtTest, Header) {
  EXPECT_EQ(tree_->version(), 17u);
  EXPECT_EQ(tree_->boot_cpuid_phys(), 0u);
  EXPECT_EQ(tree_->bytes().size(), blob_.size());
  EXPECT_EQ(tree_->memory_reservation_count(), 0u);
  EXPECT_TRUE(tree_->is_compatible(tree_->root(), "riscv-virtio"));
}

TEST_F(QemuVirtTest, MemoryIs128MiBAt80000000) {
  for (const char* path : {"/memory", "/memory@80000000"}) {
    const std::optional<Node> memory = tree_->find_node(path);
    ASSERT_TRUE(memory) << path;
    const auto device_type = tree_->find_property(*memory, "device_type");
    ASSERT_TRUE(device_type);
    EXPECT_EQ(*device_type->as_string(), "memory");
    ASSERT_EQ(*tree_->reg_count(*memory), 1u);
    Result<AddressRange> reg = tree_->reg(*memory);
    ASSERT_TRUE(reg.ok());
    EXPECT_EQ(reg->address, 0x80000000u);
    EXPECT_EQ(reg->size, 128u * 1024 * 1024);
  }
}

TEST_F(QemuVirtTest, OpenSbiReservesItsFirmware) {
  // OpenSBI 1.1 adds this node at boot: its own code and data, which
  // S-mode must never touch (PMP would fault the access anyway).
  const std::optional<Node> reserved = tree_->find_node("/reserved-memory");
  ASSERT_TRUE(reserved);
  const std::optional<Node> firmware = tree_->find_node("/reserved-memory/mmode_resv0@80000000");
  ASSERT_TRUE(firmware);
  EXPECT_EQ(tree_->first_child(*reserved)->offset, firmware->offset);
  Result<AddressRange> reg = tree_->reg(*firmware);
  ASSERT_TRUE(reg.ok());
  EXPECT_EQ(reg->address, 0x80000000u);
  EXPECT_EQ(reg->size, 0x80000u);
}

TEST_F(QemuVirtTest, Uart) {
  const std::optional<Node> uart = tree_->find_compatible("ns16550a");
  ASSERT_TRUE(uart);
  EXPECT_EQ(uart->name, "serial@10000000");
  EXPECT_EQ(tree_->parent(*uart)->name, "soc");
  Result<AddressRange> reg = tree_->reg(*uart);
  ASSERT_TRUE(reg.ok());
  EXPECT_EQ(reg->address, 0x10000000u);
  EXPECT_EQ(reg->size, 0x100u);
  EXPECT_EQ(tree_->find_node("/soc/serial")->offset, uart->offset);
  EXPECT_EQ(*tree_->find_property(*uart, "interrupts")->as_u32(), 10u);
  EXPECT_FALSE(tree_->find_compatible("ns16550a", uart));
}

TEST_F(QemuVirtTest, Chosen) {
  Result<Chosen> chosen = read_chosen(*tree_);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->bootargs, "console=ttyS0 starling.test=1");
  EXPECT_EQ(chosen->stdout_path, "/soc/serial@10000000");
  EXPECT_TRUE(tree_->find_node(*chosen->stdout_path));
}

TEST_F(QemuVirtTest, OneHartWithTimebase) {
  const std::optional<Node> cpus = tree_->find_node("/cpus");
  ASSERT_TRUE(cpus);
  EXPECT_EQ(*tree_->find_property(*cpus, "timebase-frequency")->as_u32(), 10000000u);
  int harts = 0;
  for (auto c = tree_->first_child(*cpus); c; c = tree_->next_sibling(*c)) {
    if (c->base_name() == "cpu") {
      ++harts;
      EXPECT_EQ(tree_->reg(*c)->address, 0u);
    }
  }
  EXPECT_EQ(harts, 1);
}

TEST_F(QemuVirtTest, EveryPropertyOfEveryNodeIsReachable) {
  int nodes = 0;
  int properties = 0;
  tree_->for_each_node([&](const Node& node) {
    ++nodes;
    for (auto p = tree_->first_property(node); p; p = tree_->next_property(*p)) ++properties;
    return true;
  });
  EXPECT_EQ(nodes, kExpectedNodes);
  EXPECT_EQ(properties, kExpectedProperties);
}

TEST(QemuVirtDumpTest, DumpedTreeHasNoReservedMemory) {
  // QEMU's own -machine dumpdtb: what QEMU builds before OpenSBI runs. The
  // reservation for OpenSBI exists only in the booted tree.
  const std::vector<std::byte> blob = read_file(kDumpedDtb);
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  ASSERT_TRUE(tree.ok()) << error_name(tree.error());
  EXPECT_FALSE(tree->find_node("/reserved-memory"));
  EXPECT_EQ(tree->reg(*tree->find_node("/memory"))->size, 128u * 1024 * 1024);
}

}  // namespace
}  // namespace starling::fdt
