// divide_u128 against the host's own unsigned __int128 division: edge
// values (powers of two, all ones, divisors just below and above 2^64 and
// 2^32, quotients needing the correction steps) and a million fixed
// pseudo-random pairs of every width.
#include "kernel/lib/divide_u128.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace starling::lib {
namespace {

using u128 = unsigned __int128;

u128 make(std::uint64_t high, std::uint64_t low) {
  return static_cast<u128>(high) << 64 | low;
}

void expect_divides(u128 n, u128 d) {
  const U128Division got = divide_u128(n, d);
  ASSERT_TRUE(got.quotient == n / d && got.remainder == n % d)
      << std::hex << "n = " << static_cast<std::uint64_t>(n >> 64) << ":"
      << static_cast<std::uint64_t>(n) << ", d = " << static_cast<std::uint64_t>(d >> 64) << ":"
      << static_cast<std::uint64_t>(d);
}

TEST(DivideU128, EdgeValues) {
  std::vector<u128> values = {1, 2, 3, 5, 7, 0xffffffff, 0x100000000, 0x100000001};
  for (int shift = 0; shift < 128; shift += 7) values.push_back(u128{1} << shift);
  for (const u128 v : std::vector<u128>(values)) {
    values.push_back(v - 1);
    values.push_back(~v);
  }
  values.push_back(make(0, ~std::uint64_t{0}));
  values.push_back(make(1, 0));
  values.push_back(make(1, 1));
  values.push_back(make(0x7fffffffffffffff, ~std::uint64_t{0}));
  values.push_back(make(0x8000000000000000, 0));
  values.push_back(make(0xffffffff00000000, 0xffffffff));
  // Knuth's correction cases: a divisor whose second digit is large.
  values.push_back(make(0, 0x80000000ffffffff));
  values.push_back(make(0, 0xffffffff00000001));
  for (const u128 n : values) {
    for (const u128 d : values) {
      if (d != 0) expect_divides(n, d);
    }
  }
}

TEST(DivideU128, DivisionByZeroIsAllOnesAsRiscVDivu) {
  const U128Division got = divide_u128(make(5, 6), 0);
  EXPECT_TRUE(got.quotient == ~u128{0});
  EXPECT_TRUE(got.remainder == make(5, 6));
}

TEST(DivideU128, FixedRandomPairs) {
  std::mt19937_64 random(20261206);  // fixed: a failure reproduces
  auto next = [&random] { return static_cast<std::uint64_t>(random()); };
  for (int i = 0; i < 1'000'000; ++i) {
    // Widths from 1 to 128 bits for each, so every path runs often.
    const u128 n = make(next(), next()) >> (next() % 128);
    const u128 d = make(next(), next()) >> (next() % 128);
    if (d != 0) expect_divides(n, d);
  }
}

}  // namespace
}  // namespace starling::lib
