#ifndef STARLING_KERNEL_LIB_DIVIDE_U128_H_
#define STARLING_KERNEL_LIB_DIVIDE_U128_H_

#include <bit>
#include <cstdint>

// Unsigned 128-bit division, behind the __udivti3 and __umodti3 the
// compiler calls for `unsigned __int128` `/` and `%` on RV64 (int128.cc),
// header-only so host tests compare it with the host's own division.
// compiler-rt would provide those two, but no compiler runtime is linked
// into the kernel. Who divides: Mbed TLS's bignum long division with 64-bit
// limbs (mbedtls_int_div_int: a 128-bit dividend by a 64-bit limb, a few
// dozen times a TLS handshake).
//
// A divisor below 2^64, the only case Mbed TLS has, takes two 64-bit
// hardware divisions and a 128-by-64 step done as two 64-by-32 ones with
// the divisor normalized (Knuth's algorithm D with 32-bit digits, as
// Hacker's Delight's divlu), ~50 instructions; a wider divisor, whose
// quotient fits 64 bits, takes a shift-and-subtract loop. Division by zero
// is the caller's bug, as for the built-in operators; here it gives an
// all-ones quotient, as RISC-V's divu does.
namespace starling::lib {

struct U128Division {
  unsigned __int128 quotient;
  unsigned __int128 remainder;
};

namespace detail {

// (high:low) / divisor for high < divisor: a quotient that fits 64 bits.
constexpr std::uint64_t divide_128_by_64(std::uint64_t high, std::uint64_t low,
                                         std::uint64_t divisor, std::uint64_t* remainder) {
  constexpr std::uint64_t kDigit = std::uint64_t{1} << 32;
  // Normalize: the divisor's top bit set, the dividend shifted alike (high
  // < divisor, so nothing leaves its top).
  const int shift = std::countl_zero(divisor);
  divisor <<= shift;
  const std::uint64_t d1 = divisor >> 32;
  const std::uint64_t d0 = divisor & 0xffffffff;
  const std::uint64_t n32 = shift == 0 ? high : (high << shift) | (low >> (64 - shift));
  const std::uint64_t n10 = low << shift;
  const std::uint64_t n1 = n10 >> 32;
  const std::uint64_t n0 = n10 & 0xffffffff;

  // The quotient's high digit: estimated from the top digits, then
  // corrected (at most twice).
  std::uint64_t q1 = n32 / d1;
  std::uint64_t rest = n32 - q1 * d1;
  while (q1 >= kDigit || q1 * d0 > kDigit * rest + n1) {
    --q1;
    rest += d1;
    if (rest >= kDigit) break;
  }
  const std::uint64_t n21 = n32 * kDigit + n1 - q1 * divisor;

  // Its low digit, the same way.
  std::uint64_t q0 = n21 / d1;
  rest = n21 - q0 * d1;
  while (q0 >= kDigit || q0 * d0 > kDigit * rest + n0) {
    --q0;
    rest += d1;
    if (rest >= kDigit) break;
  }
  *remainder = (n21 * kDigit + n0 - q0 * divisor) >> shift;
  return q1 * kDigit + q0;
}

}  // namespace detail

constexpr U128Division divide_u128(unsigned __int128 dividend, unsigned __int128 divisor) {
  if (divisor == 0) return {~static_cast<unsigned __int128>(0), dividend};
  if (divisor > dividend) return {0, dividend};
  const auto divisor_high = static_cast<std::uint64_t>(divisor >> 64);
  if (divisor_high == 0) {
    const auto d = static_cast<std::uint64_t>(divisor);
    const auto high = static_cast<std::uint64_t>(dividend >> 64);
    const std::uint64_t quotient_high = high / d;
    std::uint64_t remainder = 0;
    const std::uint64_t quotient_low =
        detail::divide_128_by_64(high % d, static_cast<std::uint64_t>(dividend), d, &remainder);
    return {static_cast<unsigned __int128>(quotient_high) << 64 | quotient_low, remainder};
  }
  // divisor >= 2^64 and <= dividend: line the divisor up under the
  // dividend's top bit and subtract down, one quotient bit a step (at most
  // 64).
  const int steps =
      std::countl_zero(divisor_high) - std::countl_zero(static_cast<std::uint64_t>(dividend >> 64));
  unsigned __int128 shifted = divisor << steps;
  unsigned __int128 quotient = 0;
  for (int i = 0; i <= steps; ++i) {
    quotient <<= 1;
    if (dividend >= shifted) {
      dividend -= shifted;
      quotient |= 1;
    }
    shifted >>= 1;
  }
  return {quotient, dividend};
}

}  // namespace starling::lib

#endif  // STARLING_KERNEL_LIB_DIVIDE_U128_H_
