// X25519 public keys by a fixed-base comb.
//
// A TLS 1.3 server makes a fresh X25519 key pair for every handshake, full
// or resumed, and its public key is k * 9. Run as X25519 runs, through the
// Montgomery ladder (HACL*'s, Everest), that is 255 ladder steps, ~540k
// guest instructions, a quarter of a resumed handshake (docs/tls.md). The
// base point is fixed, so its multiples can be computed once: on the
// twisted Edwards curve birationally equivalent to Curve25519 (RFC 7748
// section 4.1; B maps to u = 9, and u = (1 + y) / (1 - y) maps back), k B
// is a sum of 64 table points, one per signed radix-16 digit of k, with
// four doublings in the middle (the odd digits' sum times 16). The table
// (make_base_table.py, at build time) holds j 256^r B for j = 1..8 and
// r = 0..31, 24 KiB of .rodata. Its additions are complete (d is not a
// square), so no input takes a special case.
//
// Field elements: four 64-bit limbs, kept below 2^256 but not fully reduced
// between operations; 2^256 = 38 (mod p). A product is 16 limb products
// and a fold of its top half times 38; only the result is made canonical.
// Constant time in the secret: table entries are read by masks, every
// entry of a row every time; no branch or index depends on the secret.
#include "net/tls/x25519/public_key.h"

#include <cstdint>

#include "net/tls/limbs.h"

namespace starling::net::tls::x25519 {
namespace {

using u128 = unsigned __int128;

struct Fe {
  std::uint64_t w[4];
};

// r + c * 38 (c below 2^17), carried through; a carry out of the top
// (possible once) folds in again as 38, which then cannot carry: what
// wrapped is below c * 38 by then.
Fe fold(Fe r, std::uint64_t c) {
  u128 acc = static_cast<u128>(r.w[0]) + static_cast<u128>(c) * 38;
  r.w[0] = static_cast<std::uint64_t>(acc);
  for (int i = 1; i < 4; ++i) {
    acc = static_cast<u128>(r.w[i]) + static_cast<std::uint64_t>(acc >> 64);
    r.w[i] = static_cast<std::uint64_t>(acc);
  }
  r.w[0] += static_cast<std::uint64_t>(acc >> 64) * 38;
  return r;
}

Fe add(const Fe& a, const Fe& b) {
  Fe r;
  const std::uint64_t carry = add_limbs(a.w, b.w, ~std::uint64_t{0}, r.w);
  return fold(r, carry);
}

// a - b: a borrow out of the top means 2^256 too little, 38 too much
// modulo p; taking 38 off may borrow once more (then the value was under
// 38), and the second 38 cannot.
Fe sub(const Fe& a, const Fe& b) {
  Fe r;
  const std::uint64_t borrow = subtract_limbs(a.w, b.w, r.w);
  u128 d = static_cast<u128>(r.w[0]) - borrow * 38;
  r.w[0] = static_cast<std::uint64_t>(d);
  for (int i = 1; i < 4; ++i) {
    d = static_cast<u128>(r.w[i]) - (static_cast<std::uint64_t>(d >> 64) & 1);
    r.w[i] = static_cast<std::uint64_t>(d);
  }
  r.w[0] -= (static_cast<std::uint64_t>(d >> 64) & 1) * 38;
  return r;
}

// t[0..7] (a product) modulo p, weakly: low half + 38 * high half.
Fe reduce_product(const std::uint64_t t[8]) {
  Fe r;
  std::uint64_t carry = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 acc = static_cast<u128>(t[i + 4]) * 38 + t[i] + carry;
    r.w[i] = static_cast<std::uint64_t>(acc);
    carry = static_cast<std::uint64_t>(acc >> 64);
  }
  return fold(r, carry);
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

Fe sqr_times(Fe a, int n) {
  for (int i = 0; i < n; ++i) a = sqr(a);
  return a;
}

// a^(p-2) = 1/a, p - 2 = 2^255 - 21, by the usual chain: 254 squares and
// 11 products.
Fe invert(const Fe& a) {
  const Fe a2 = sqr(a);                          // 2
  const Fe a9 = mul(sqr_times(a2, 2), a);        // 9
  const Fe a11 = mul(a9, a2);                    // 11
  const Fe x5 = mul(sqr(a11), a9);               // 2^5 - 1
  const Fe x10 = mul(sqr_times(x5, 5), x5);      // 2^10 - 1
  const Fe x20 = mul(sqr_times(x10, 10), x10);   // 2^20 - 1
  const Fe x40 = mul(sqr_times(x20, 20), x20);   // 2^40 - 1
  const Fe x50 = mul(sqr_times(x40, 10), x10);   // 2^50 - 1
  const Fe x100 = mul(sqr_times(x50, 50), x50);  // 2^100 - 1
  const Fe x200 = mul(sqr_times(x100, 100), x100);
  const Fe x250 = mul(sqr_times(x200, 50), x50);  // 2^250 - 1
  return mul(sqr_times(x250, 5), a11);            // 2^255 - 32 + 11
}

// The canonical value: below 2^256 = 2p + 38, so p is taken off at most
// twice.
Fe canonical(Fe a) {
  constexpr Fe kP = {
      {0xFFFFFFFFFFFFFFEDu, 0xFFFFFFFFFFFFFFFFu, 0xFFFFFFFFFFFFFFFFu, 0x7FFFFFFFFFFFFFFFu}};
  for (int round = 0; round < 2; ++round) {
    Fe d;
    const std::uint64_t borrow = subtract_limbs(a.w, kP.w, d.w);
    select_limbs(borrow - 1, d.w, a.w, a.w);  // no borrow: a >= p, take a - p
  }
  return a;
}

// A point in extended coordinates: x = X/Z, y = Y/Z, x y = T/Z.
struct Extended {
  Fe x, y, z, t;
};

// A table point (x, y) as the mixed addition uses it.
struct Niels {
  Fe y_plus_x, y_minus_x, xy2d;
};

constexpr Fe kTable[32 * 8 * 3] = {
#include "net/tls/x25519/base_table.inc"
};

// b where mask is all ones, a where it is zero.
Fe select_mask(const Fe& a, const Fe& b, std::uint64_t mask) {
  Fe r;
  select_limbs(mask, b.w, a.w, r.w);
  return r;
}

// digit 256^row B, digit in [-8, 8]: all eight entries of the row read and
// the wanted one kept by mask; 0 gives the identity (1, 1, 0), a negative
// digit the point's negative (-x, y): y + x and y - x swap, 2 d x y changes
// sign.
Niels select(int row, int digit) {
  const auto d = static_cast<std::int64_t>(digit);
  const std::uint64_t negative = static_cast<std::uint64_t>(d >> 63);  // all ones or zero
  const std::uint64_t magnitude = static_cast<std::uint64_t>((d ^ d >> 63) - (d >> 63));
  Niels r = {{{1, 0, 0, 0}}, {{1, 0, 0, 0}}, {{0, 0, 0, 0}}};
  for (std::uint64_t j = 0; j < 8; ++j) {
    // All ones when magnitude == j + 1: (x - 1) >> 63 is 1 only for x = 0.
    const std::uint64_t hit = 0 - (((magnitude ^ (j + 1)) - 1) >> 63);
    const Fe* entry = &kTable[(static_cast<std::uint64_t>(row) * 8 + j) * 3];
    r.y_plus_x = select_mask(r.y_plus_x, entry[0], hit);
    r.y_minus_x = select_mask(r.y_minus_x, entry[1], hit);
    r.xy2d = select_mask(r.xy2d, entry[2], hit);
  }
  const Fe swapped_plus = select_mask(r.y_plus_x, r.y_minus_x, negative);
  r.y_minus_x = select_mask(r.y_minus_x, r.y_plus_x, negative);
  r.y_plus_x = swapped_plus;
  r.xy2d = select_mask(r.xy2d, sub(Fe{{0, 0, 0, 0}}, r.xy2d), negative);
  return r;
}

// h + q (add-2008-hwcd-3 with Z2 = 1 and k = 2d folded into the table): 7
// products.
Extended add_table_point(const Extended& h, const Niels& q) {
  const Fe a = mul(sub(h.y, h.x), q.y_minus_x);
  const Fe b = mul(add(h.y, h.x), q.y_plus_x);
  const Fe c = mul(h.t, q.xy2d);
  const Fe d = add(h.z, h.z);
  const Fe e = sub(b, a);
  const Fe f = sub(d, c);
  const Fe g = add(d, c);
  const Fe hh = add(b, a);
  return {mul(e, f), mul(g, hh), mul(f, g), mul(e, hh)};
}

// 2 h (dbl-2008-hwcd for a = -1, with every intermediate negated, which
// leaves the projective point as it is): 4 squares, 4 products.
Extended double_point(const Extended& h) {
  const Fe xx = sqr(h.x);
  const Fe yy = sqr(h.y);
  const Fe zz = sqr(h.z);
  const Fe b = add(zz, zz);
  const Fe aa = sqr(add(h.x, h.y));
  const Fe y3 = add(yy, xx);
  const Fe z3 = sub(yy, xx);
  const Fe x3 = sub(aa, y3);
  const Fe t3 = sub(b, z3);
  return {mul(x3, t3), mul(y3, z3), mul(z3, t3), mul(x3, y3)};
}

}  // namespace
}  // namespace starling::net::tls::x25519

extern "C" void starling_x25519_public_key(unsigned char public_key[32],
                                           const unsigned char secret[32]) {
  using namespace starling::net::tls::x25519;
  std::uint8_t k[32];
  for (int i = 0; i < 32; ++i) k[i] = secret[i];
  k[0] &= 248;
  k[31] = static_cast<std::uint8_t>((k[31] & 127) | 64);
  // Radix 16, then signed digits in [-8, 8): each digit of 8 or more
  // becomes digit - 16 and carries one up. k < 2^255, so the top digit
  // ends at most 8.
  int digits[64];
  for (int i = 0; i < 32; ++i) {
    digits[2 * i] = k[i] & 15;
    digits[2 * i + 1] = k[i] >> 4;
  }
  int carry = 0;
  for (int i = 0; i < 63; ++i) {
    digits[i] += carry;
    carry = (digits[i] + 8) >> 4;
    digits[i] -= carry * 16;
  }
  digits[63] += carry;

  Extended h = {{{0, 0, 0, 0}}, {{1, 0, 0, 0}}, {{1, 0, 0, 0}}, {{0, 0, 0, 0}}};
  for (int i = 1; i < 64; i += 2) h = add_table_point(h, select(i / 2, digits[i]));
  for (int i = 0; i < 4; ++i) h = double_point(h);
  for (int i = 0; i < 64; i += 2) h = add_table_point(h, select(i / 2, digits[i]));

  // u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y). Z - Y is never 0: k B is
  // never the identity for a clamped k (a multiple of 8 below 2^255 and at
  // least 2^254, and B's order is a prime just over 2^252).
  const Fe u = canonical(mul(add(h.z, h.y), invert(sub(h.z, h.y))));
  for (int i = 0; i < 32; ++i) {
    public_key[i] = static_cast<unsigned char>(u.w[i / 8] >> (8 * (i % 8)));
  }
  for (auto& byte : k) *static_cast<volatile std::uint8_t*>(&byte) = 0;
  for (auto& digit : digits) *static_cast<volatile int*>(&digit) = 0;
}
