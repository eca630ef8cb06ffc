#include "kernel/fdt/chosen.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/fdt/blob_builder.h"

namespace starling::fdt {
namespace {

using testing::BlobBuilder;

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
  BlobBuilder b;
  b.begin_node("").end_node().end();
  const std::vector<std::byte> blob = b.build();
  Result<Chosen> chosen = chosen_of(blob);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->bootargs, std::nullopt);
  EXPECT_EQ(chosen->stdout_path, std::nullopt);
}

TEST(ChosenTest, UnterminatedBootargsIsMalformed) {
  BlobBuilder b;
  b.begin_node("")
      .begin_node("chosen")
      .property("bootargs", {std::byte{'a'}, std::byte{'b'}})
      .end_node()
      .end_node()
      .end();
  EXPECT_EQ(chosen_of(b.build()).error(), Error::kMalformed);
}

}  // namespace
}  // namespace starling::fdt
