#include "net/tls/p256/field.h"

#include <cstdint>

#include "net/tls/limbs.h"

namespace starling::net::tls::p256 {
namespace {

Fe select(std::uint64_t mask, const Fe& if_set, const Fe& otherwise) {
  Fe r;
  select_limbs(mask, if_set.w, otherwise.w, r.w);
  return r;
}

// 32-bit words w[0..7] plus `carry` * 2^256 (signed sums of a few words
// each) carried into r's words; the signed carry out of the top.
std::int64_t propagate(const std::int64_t w[8], std::uint32_t r[8], std::int64_t carry) {
  for (int i = 0; i < 8; ++i) {
    carry += w[i];
    r[i] = static_cast<std::uint32_t>(carry);
    carry >>= 32;  // arithmetic (C++20): a negative sum borrows
  }
  return carry;
}

// The 512-bit product t[0..7] modulo p: FIPS 186-4's (D.2.3) fast reduction
// for P-256 on the product's 32-bit words c0..c15,
//   s1 + 2 s2 + 2 s3 + s4 + s5 - s6 - s7 - s8 - s9,
// summed word by word in signed 64-bit lanes, then the carry out of 2^256
// folded back in as 2^256 = 2^224 - 2^192 - 2^96 + 1 (mod p) twice (the
// first leaves a carry of -1, 0 or 1, the second none), then one
// conditional subtraction of p.
Fe reduce_product(const std::uint64_t t[8]) {
  std::int64_t c[16];
  for (int i = 0; i < 8; ++i) {
    c[2 * i] = static_cast<std::int64_t>(t[i] & 0xFFFFFFFFu);
    c[2 * i + 1] = static_cast<std::int64_t>(t[i] >> 32);
  }
  std::int64_t w[8];
  w[0] = c[0] + c[8] + c[9] - c[11] - c[12] - c[13] - c[14];
  w[1] = c[1] + c[9] + c[10] - c[12] - c[13] - c[14] - c[15];
  w[2] = c[2] + c[10] + c[11] - c[13] - c[14] - c[15];
  w[3] = c[3] + 2 * (c[11] + c[12]) + c[13] - c[15] - c[8] - c[9];
  w[4] = c[4] + 2 * (c[12] + c[13]) + c[14] - c[9] - c[10];
  w[5] = c[5] + 2 * (c[13] + c[14]) + c[15] - c[10] - c[11];
  w[6] = c[6] + 3 * c[14] + 2 * c[15] + c[13] - c[8] - c[9];
  w[7] = c[7] + 3 * c[15] + c[8] - c[10] - c[11] - c[12] - c[13];
  std::uint32_t r[8];
  std::int64_t top = propagate(w, r, 0);
  for (int fold = 0; fold < 2; ++fold) {
    for (int i = 0; i < 8; ++i) w[i] = r[i];
    w[0] += top;
    w[3] -= top;
    w[6] -= top;
    w[7] += top;
    top = propagate(w, r, 0);
  }
  Fe v;
  for (int i = 0; i < 4; ++i) {
    v.w[i] = static_cast<std::uint64_t>(r[2 * i]) | static_cast<std::uint64_t>(r[2 * i + 1]) << 32;
  }
  return reduce_once(v);
}

}  // namespace

Fe reduce_once(const Fe& a) {
  Fe d;
  const std::uint64_t borrow = subtract_limbs(a.w, kPrime.w, d.w);
  return select(borrow - 1, d, a);  // no borrow: a >= p, take a - p
}

Fe add(const Fe& a, const Fe& b) {
  Fe s;
  const std::uint64_t carry = add_limbs(a.w, b.w, ~std::uint64_t{0}, s.w);
  Fe d;
  const std::uint64_t borrow = subtract_limbs(s.w, kPrime.w, d.w);
  // a + b < 2p: subtract p when the sum carried out or is p or more.
  const std::uint64_t take_d = carry | (borrow ^ 1);
  return select(0 - take_d, d, s);
}

Fe sub(const Fe& a, const Fe& b) {
  Fe d;
  const std::uint64_t borrow = subtract_limbs(a.w, b.w, d.w);
  Fe r;
  (void)add_limbs(d.w, kPrime.w, 0 - borrow, r.w);  // below zero: add p back
  return r;
}

Fe mul(const Fe& a, const Fe& b) {
  std::uint64_t t[8];
  multiply_limbs(a.w, b.w, t);
  return reduce_product(t);
}

Fe sqr(const Fe& a) {
  std::uint64_t t[8];
  square_limbs(a.w, t);
  return reduce_product(t);
}

Fe inverse(const Fe& a) {
  // p - 2, most significant bit first: 255 squarings and a product per set
  // bit. The exponent is public; the base is not branched on.
  constexpr Fe kExponent = {
      {0xFFFFFFFFFFFFFFFDu, 0x00000000FFFFFFFFu, 0x0000000000000000u, 0xFFFFFFFF00000001u}};
  Fe r = {{1, 0, 0, 0}};
  for (int bit = 255; bit >= 0; --bit) {
    r = sqr(r);
    if ((kExponent.w[bit / 64] >> (bit % 64)) & 1) r = mul(r, a);
  }
  return r;
}

bool is_zero(const Fe& a) {
  return (a.w[0] | a.w[1] | a.w[2] | a.w[3]) == 0;
}

}  // namespace starling::net::tls::p256
