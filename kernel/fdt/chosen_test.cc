#include "kernel/fdt/chosen.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/fdt/blob_builder.h"
#include "kernel/fdt/tree_writer.h"

namespace starling::fdt {
namespace {

using fdt::TreeWriter;

// The Chosen views point into `blob`: callers keep it alive.
Result<Chosen> chosen_of(const std::vector<std::byte>& blob) {
  Result<DeviceTree> tree = DeviceTree::open(blob.data(), blob.size());
  EXPECT_TRUE(tree.ok());
  if (!tree) return Unexpected(tree.error());
  return read_chosen(*tree);
}

TEST(ChosenTest, ReadsBootargs) {
  const std::vector<std::byte> blob = testing::small_tree();
  Result<Chosen> chosen = chosen_of(blob);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->bootargs, "console=hvc0");
  EXPECT_EQ(chosen->stdout_path, std::nullopt);
}

TEST(ChosenTest, MissingChosenGivesEmptyFields) {
  TreeWriter b;
  b.begin_node("").end_node();
  const std::vector<std::byte> blob = b.finish();
  Result<Chosen> chosen = chosen_of(blob);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->bootargs, std::nullopt);
  EXPECT_EQ(chosen->stdout_path, std::nullopt);
}

TEST(ChosenTest, UnterminatedBootargsIsMalformed) {
  TreeWriter b;
  b.begin_node("")
      .begin_node("chosen")
      .property("bootargs", {std::byte{'a'}, std::byte{'b'}})
      .end_node()
      .end_node();
  EXPECT_EQ(chosen_of(b.finish()).error(), Error::kMalformed);
}

TEST(ChosenTest, InitrdInOneOrTwoCells) {
  for (const bool two_cells : {false, true}) {
    TreeWriter b;
    b.begin_node("").begin_node("chosen");
    if (two_cells) {
      b.property_cells("linux,initrd-start", {0x0, 0x88000000});
      b.property_cells("linux,initrd-end", {0x0, 0x88000400});
    } else {
      b.property_cells("linux,initrd-start", {0x88000000});
      b.property_cells("linux,initrd-end", {0x88000400});
    }
    b.end_node().end_node();
    const std::vector<std::byte> blob = b.finish();
    Result<Chosen> chosen = chosen_of(blob);
    ASSERT_TRUE(chosen.ok());
    ASSERT_TRUE(chosen->initrd);
    EXPECT_EQ(chosen->initrd->start, 0x88000000u);
    EXPECT_EQ(chosen->initrd->end, 0x88000400u);
  }
}

TEST(ChosenTest, InitrdNeedsBothEndsInOrder) {
  TreeWriter b;
  b.begin_node("")
      .begin_node("chosen")
      .property_cells("linux,initrd-start", {0x88000400})
      .property_cells("linux,initrd-end", {0x88000000})
      .end_node()
      .end_node();
  const std::vector<std::byte> blob = b.finish();
  Result<Chosen> chosen = chosen_of(blob);
  ASSERT_TRUE(chosen.ok());
  EXPECT_FALSE(chosen->initrd);
  TreeWriter odd;
  odd.begin_node("")
      .begin_node("chosen")
      .property("linux,initrd-start", {std::byte{1}, std::byte{2}, std::byte{3}})
      .end_node()
      .end_node();
  EXPECT_EQ(chosen_of(odd.finish()).error(), Error::kMalformed);
}

}  // namespace
}  // namespace starling::fdt
