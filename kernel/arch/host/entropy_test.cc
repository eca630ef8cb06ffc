#include "kernel/hal/entropy.h"

#include <array>
#include <cstddef>

#include "gtest/gtest.h"

namespace starling::hal {
namespace {

TEST(HostEntropy, FillsAndDiffers) {
  std::array<std::byte, 64> a{};
  std::array<std::byte, 64> b{};
  ASSERT_TRUE(fill_entropy(a).ok());
  ASSERT_TRUE(fill_entropy(b).ok());
  // 512 random bits twice alike, or all zero: a broken source, not chance.
  EXPECT_NE(a, b);
  EXPECT_NE(a, (std::array<std::byte, 64>{}));
  EXPECT_EQ(entropy_source(), "getrandom");
}

TEST(HostEntropy, LargeAndEmptyReads) {
  std::array<std::byte, 4096> big{};
  ASSERT_TRUE(fill_entropy(big).ok());
  EXPECT_TRUE(fill_entropy({}).ok());
}

}  // namespace
}  // namespace starling::hal
