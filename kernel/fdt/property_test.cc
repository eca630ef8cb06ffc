#include "kernel/fdt/property.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string_view>

namespace starling::fdt {
namespace {

template <std::size_t N>
std::span<const std::byte> as_bytes(const char (&text)[N]) {
  // Includes the literal's final NUL, like a device tree string value.
  return std::as_bytes(std::span<const char>(text, N));
}

TEST(PropertyTest, U32AndU64AreBigEndianAndExactSize) {
  constexpr std::array<std::byte, 8> kValue{std::byte{0x12}, std::byte{0x34}, std::byte{0x56},
                                            std::byte{0x78}, std::byte{0x9a}, std::byte{0xbc},
                                            std::byte{0xde}, std::byte{0xf0}};
  const Property four("p", std::span(kValue).first(4), 0);
  const Property eight("p", std::span(kValue), 0);
  ASSERT_TRUE(four.as_u32().ok());
  EXPECT_EQ(*four.as_u32(), 0x12345678u);
  ASSERT_TRUE(eight.as_u64().ok());
  EXPECT_EQ(*eight.as_u64(), 0x123456789abcdef0u);
  EXPECT_EQ(four.as_u64().error(), Error::kMalformed);
  EXPECT_EQ(eight.as_u32().error(), Error::kMalformed);
  const Property three("p", std::span(kValue).first(3), 0);
  EXPECT_FALSE(three.as_u32().ok());
}

TEST(PropertyTest, StringMustBeTerminatedWithoutInnerNul) {
  const Property good("p", as_bytes("okay"), 0);
  ASSERT_TRUE(good.as_string().ok());
  EXPECT_EQ(*good.as_string(), "okay");

  const Property empty_string("p", as_bytes(""), 0);
  ASSERT_TRUE(empty_string.as_string().ok());
  EXPECT_EQ(*empty_string.as_string(), "");

  const Property no_value("p", {}, 0);
  EXPECT_EQ(no_value.as_string().error(), Error::kMalformed);

  const Property unterminated("p", as_bytes("okay").first(4), 0);
  EXPECT_EQ(unterminated.as_string().error(), Error::kMalformed);

  const Property list("p", as_bytes("a\0b"), 0);
  EXPECT_EQ(list.as_string().error(), Error::kMalformed);
}

TEST(PropertyTest, StringListEntries) {
  const Property list("compatible", as_bytes("qemu,platform\0simple-bus"), 0);
  EXPECT_EQ(list.string_at(0), "qemu,platform");
  EXPECT_EQ(list.string_at(1), "simple-bus");
  EXPECT_EQ(list.string_at(2), std::nullopt);
  EXPECT_TRUE(list.contains_string("simple-bus"));
  EXPECT_TRUE(list.contains_string("qemu,platform"));
  EXPECT_FALSE(list.contains_string("simple"));
  EXPECT_FALSE(list.contains_string(""));
}

TEST(PropertyTest, UnterminatedLastStringIsNotAnEntry) {
  // "ab\0cd" without a final NUL: "cd" runs off the value's end.
  const Property list("p", as_bytes("ab\0cd").first(5), 0);
  EXPECT_EQ(list.string_at(0), "ab");
  EXPECT_EQ(list.string_at(1), std::nullopt);
  EXPECT_FALSE(list.contains_string("cd"));
}

}  // namespace
}  // namespace starling::fdt
