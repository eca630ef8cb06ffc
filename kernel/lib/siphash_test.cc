#include "kernel/lib/siphash.h"

#include <array>
#include <cstdint>

#include "gtest/gtest.h"

namespace starling {
namespace {

// The reference key 00 01 .. 0f.
constexpr SipKey kReferenceKey{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

std::array<std::uint8_t, 64> counting_bytes() {
  std::array<std::uint8_t, 64> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i);
  return bytes;
}

// The paper's appendix A example: message 00 01 .. 0e (15 bytes).
TEST(SipHash, PaperExample) {
  const auto bytes = counting_bytes();
  EXPECT_EQ(siphash24(kReferenceKey, std::span(bytes.data(), 15)), 0xa129ca6149be45e5ULL);
}

// The reference implementation's vectors.h, first entries (empty, 1, 8 bytes).
TEST(SipHash, ReferenceVectors) {
  const auto bytes = counting_bytes();
  EXPECT_EQ(siphash24(kReferenceKey, std::span(bytes.data(), 0)), 0x726fdb47dd0e0e31ULL);
  EXPECT_EQ(siphash24(kReferenceKey, std::span(bytes.data(), 1)), 0x74f839c593dc67fdULL);
  EXPECT_EQ(siphash24(kReferenceKey, std::span(bytes.data(), 8)), 0x93f5f5799a932462ULL);
}

TEST(SipHash, KeyAndEveryByteMatter) {
  auto bytes = counting_bytes();
  const std::uint64_t base = siphash24(kReferenceKey, std::span(bytes.data(), 12));
  EXPECT_NE(siphash24(SipKey{kReferenceKey.k0 ^ 1, kReferenceKey.k1}, std::span(bytes.data(), 12)),
            base);
  for (std::size_t i = 0; i < 12; ++i) {
    bytes[i] ^= 0x80;
    EXPECT_NE(siphash24(kReferenceKey, std::span(bytes.data(), 12)), base) << i;
    bytes[i] ^= 0x80;
  }
}

static_assert(siphash24(kReferenceKey, {}) == 0x726fdb47dd0e0e31ULL, "usable in constexpr");

}  // namespace
}  // namespace starling
