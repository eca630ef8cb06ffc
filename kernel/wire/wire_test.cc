#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>

#include "kernel/wire/byte_order.h"
#include "kernel/wire/checksum.h"
#include "kernel/wire/frame.h"

namespace starling::wire {
namespace {

template <std::size_t N>
std::array<std::byte, N> bytes(const std::uint8_t (&v)[N]) {
  std::array<std::byte, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = std::byte{v[i]};
  return out;
}

TEST(ByteOrder, ReadsAndWritesBigEndian) {
  std::array<std::byte, 6> b{};
  put_be16(b, 0, 0x1234);
  put_be32(b, 2, 0xA1B2C3D4);
  EXPECT_EQ(b[0], std::byte{0x12});
  EXPECT_EQ(b[5], std::byte{0xD4});
  EXPECT_EQ(be16(b, 0), 0x1234);
  EXPECT_EQ(be32(b, 2), 0xA1B2C3D4u);
}

// RFC 1071 section 3's example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
TEST(Checksum, Rfc1071Example) {
  const auto data = bytes({0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7});
  EXPECT_EQ(ones_complement_sum(data), 0xddf2);
  EXPECT_EQ(internet_checksum(data), static_cast<std::uint16_t>(~0xddf2));
}

// A real IPv4 header (checksum b861 in place) sums to 0xFFFF; an odd
// length pads with zero; the fold carries from every bit position.
TEST(Checksum, HeaderWithItsChecksumSumsToAllOnes) {
  const auto header = bytes({0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                             0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7});
  EXPECT_EQ(ones_complement_sum(header), 0xFFFF);
  EXPECT_EQ(ones_complement_sum(bytes({0x12, 0x34, 0x56})), 0x1234 + 0x5600);
  EXPECT_EQ(fold(0xFFFF'FFFF'FFFF'FFFFull), 0xFFFF);
  EXPECT_EQ(fold(0x1'0000'0000ull), 0x0001);
  EXPECT_EQ(fold(0x0001'FFFFull), 0x0001);
}

TEST(Checksum, PseudoHeaders) {
  EXPECT_EQ(ipv4_pseudo_header_sum(0x0A00020F, 0x0A000202, 17, 8),
            0x0A00u + 0x020F + 0x0A00 + 0x0202 + 17 + 8);
  std::array<std::byte, 16> a{}, b{};
  a[15] = std::byte{1};
  b[0] = std::byte{0xfe};
  b[1] = std::byte{0x80};
  EXPECT_EQ(ipv6_pseudo_header_sum(a, b, 58, 8), 1u + 0xfe80 + 58 + 8);
}

// The run-time path (addresses 2-byte aligned: native words, the sum's bytes
// swapped) and the byte-by-byte one (odd addresses, and constant
// evaluation) agree with a sum over the pseudo-header written out, on
// random addresses whose words carry out of 16 bits.
TEST(Checksum, Ipv6PseudoHeaderAtEveryAlignment) {
  std::mt19937 random(6);
  alignas(8) std::array<std::byte, 48> buffer{};
  for (int n = 0; n < 2000; ++n) {
    const std::size_t at = static_cast<std::size_t>(n % 4);  // even and odd
    for (auto& b : buffer) b = static_cast<std::byte>(random());
    const auto src = std::span<const std::byte, 48>(buffer).subspan(at).first<16>();
    const auto dst = std::span<const std::byte, 48>(buffer).subspan(at + 16).first<16>();
    const auto next = static_cast<std::uint8_t>(random());
    const std::size_t length = random() % 65536;
    std::array<std::byte, 40> pseudo{};
    for (std::size_t i = 0; i < 16; ++i) {
      pseudo[i] = src[i];
      pseudo[16 + i] = dst[i];
    }
    put_be16(pseudo, 34, static_cast<std::uint16_t>(length));
    pseudo[39] = static_cast<std::byte>(next);
    ASSERT_EQ(fold(ipv6_pseudo_header_sum(src, dst, next, length)), ones_complement_sum(pseudo))
        << "at +" << at << ", round " << n;
  }
  constexpr std::array<std::byte, 16> kOnes = {std::byte{0xff}, std::byte{0xfe}};
  static_assert(ipv6_pseudo_header_sum(kOnes, kOnes, 6, 20) == 2u * 0xfffe + 6 + 20);
}

TEST(Frame, Ipv4FragmentsAreTold) {
  std::array<std::byte, 34> frame{};
  put_be16(frame, 12, kEtherTypeIpv4);
  frame[14] = std::byte{0x45};
  EXPECT_FALSE(is_ipv4_fragment(frame));
  put_be16(frame, 20, 0x2000);  // MF
  EXPECT_TRUE(is_ipv4_fragment(frame));
  put_be16(frame, 20, 0x4000);  // DF only
  EXPECT_FALSE(is_ipv4_fragment(frame));
  put_be16(frame, 20, 0x0001);  // an offset
  EXPECT_TRUE(is_ipv4_fragment(frame));
  put_be16(frame, 12, kEtherTypeIpv6);
  EXPECT_FALSE(is_ipv4_fragment(frame));
  EXPECT_FALSE(is_ipv4_fragment(std::span(frame).first(33)));  // too short to be IPv4
}

}  // namespace
}  // namespace starling::wire
