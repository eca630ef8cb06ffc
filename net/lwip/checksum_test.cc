#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "arch/cc.h"

namespace {

// RFC 1071 as written: 16-bit words in memory order from the start of the
// data (a last odd byte padded with zero after it), summed and folded.
std::uint16_t reference_sum(const unsigned char* p, std::size_t n) {
  std::uint32_t sum = 0;
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] | (p[i + 1] << 8));
  if (i < n) sum += p[i];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

// One's complement equality: 0x0000 and 0xFFFF are both zero.
bool same_sum(std::uint16_t a, std::uint16_t b) {
  return a == b || (a == 0 && b == 0xFFFF) || (a == 0xFFFF && b == 0);
}

// Every start alignment 0..15 and length 0..600 plus frame sizes, over
// random bytes and over all-0xFF (carry-heavy) bytes.
TEST(StarlingChecksum, MatchesRfc1071OverEveryAlignmentAndLength) {
  std::mt19937 rng(42);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 600; ++n) lengths.push_back(n);
  for (std::size_t n : {1472u, 1480u, 1499u, 1500u, 1514u, 9000u, 65535u}) lengths.push_back(n);
  for (int pattern = 0; pattern < 2; ++pattern) {
    for (std::size_t n : lengths) {
      for (std::size_t offset = 0; offset < 16; ++offset) {
        // Exactly sized, so ASan reports any read outside [p, p + n).
        auto* block = new unsigned char[offset + n];
        for (std::size_t i = 0; i < offset + n; ++i) {
          block[i] = pattern == 0 ? static_cast<unsigned char>(rng()) : 0xFF;
        }
        const unsigned char* p = block + offset;
        const std::uint16_t got = starling_lwip_chksum(p, static_cast<int>(n));
        const std::uint16_t want = reference_sum(p, n);
        ASSERT_TRUE(same_sum(got, want))
            << "n=" << n << " offset=" << offset << " got=" << got << " want=" << want;
        delete[] block;
      }
    }
  }
}

TEST(StarlingChecksum, KnownValue) {
  // RFC 1071 §3's example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 (big-endian
  // view), i.e. f2dd in memory order on a little-endian CPU.
  const unsigned char bytes[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(starling_lwip_chksum(bytes, 8), 0xf2dd);
  EXPECT_EQ(starling_lwip_chksum(bytes, 0), 0);
  EXPECT_EQ(starling_lwip_chksum(bytes, -1), 0);
}

}  // namespace
