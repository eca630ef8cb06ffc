#ifndef STARLING_NET_TLS_LIMBS_H_
#define STARLING_NET_TLS_LIMBS_H_

#include <cstdint>

// Arithmetic on 256-bit numbers in four 64-bit limbs (little-endian limb
// order) that both of Starling's curve fields build on before reducing by
// their own prime (net/tls/p256/field.cc, net/tls/x25519/public_key.cc):
// the full 512-bit product and square, and the carrying add, the borrowing
// subtract and the masked select. On RV64 a limb product is one `mul` and
// one `mulhu`. Inline: a field product is most of its callers' cost, and a
// call per product would add a tenth. Outputs may be the same array as an
// input (each limb is read before it is written).
namespace starling::net::tls {

// r = a + (b & mask), mask all ones or all zeros; the carry out (0 or 1).
[[gnu::always_inline]] inline std::uint64_t add_limbs(const std::uint64_t a[4],
                                                      const std::uint64_t b[4], std::uint64_t mask,
                                                      std::uint64_t r[4]) {
  using u128 = unsigned __int128;
  std::uint64_t carry = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 s = static_cast<u128>(a[i]) + (b[i] & mask) + carry;
    r[i] = static_cast<std::uint64_t>(s);
    carry = static_cast<std::uint64_t>(s >> 64);
  }
  return carry;
}

// r = a - b; the borrow out (0 or 1).
[[gnu::always_inline]] inline std::uint64_t subtract_limbs(const std::uint64_t a[4],
                                                           const std::uint64_t b[4],
                                                           std::uint64_t r[4]) {
  using u128 = unsigned __int128;
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 d = static_cast<u128>(a[i]) - b[i] - borrow;
    r[i] = static_cast<std::uint64_t>(d);
    borrow = static_cast<std::uint64_t>(d >> 64) & 1;
  }
  return borrow;
}

// r = if_set where mask is all ones, otherwise where it is all zeros: no
// branch on the mask, which may be secret.
[[gnu::always_inline]] inline void select_limbs(std::uint64_t mask, const std::uint64_t if_set[4],
                                                const std::uint64_t otherwise[4],
                                                std::uint64_t r[4]) {
  for (int i = 0; i < 4; ++i) r[i] = (if_set[i] & mask) | (otherwise[i] & ~mask);
}

// t = a * b: 16 limb products.
[[gnu::always_inline]] inline void multiply_limbs(const std::uint64_t a[4],
                                                  const std::uint64_t b[4], std::uint64_t t[8]) {
  using u128 = unsigned __int128;
  for (int i = 0; i < 8; ++i) t[i] = 0;
  for (int i = 0; i < 4; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < 4; ++j) {
      const u128 p = static_cast<u128>(a[i]) * b[j] + t[i + j] + carry;
      t[i + j] = static_cast<std::uint64_t>(p);
      carry = static_cast<std::uint64_t>(p >> 64);
    }
    t[i + 4] = carry;
  }
}

// t = a * a: the off-diagonal products once, doubled, then the squares: 10
// limb products where multiply_limbs() makes 16.
[[gnu::always_inline]] inline void square_limbs(const std::uint64_t a[4], std::uint64_t t[8]) {
  using u128 = unsigned __int128;
  for (int i = 0; i < 8; ++i) t[i] = 0;
  for (int i = 0; i < 3; ++i) {
    std::uint64_t carry = 0;
    for (int j = i + 1; j < 4; ++j) {
      const u128 p = static_cast<u128>(a[i]) * a[j] + t[i + j] + carry;
      t[i + j] = static_cast<std::uint64_t>(p);
      carry = static_cast<std::uint64_t>(p >> 64);
    }
    t[i + 4] = carry;
  }
  std::uint64_t top = 0;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t next = t[i] >> 63;
    t[i] = t[i] << 1 | top;
    top = next;
  }
  std::uint64_t carry = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 square = static_cast<u128>(a[i]) * a[i];
    const u128 low = static_cast<u128>(t[2 * i]) + static_cast<std::uint64_t>(square) + carry;
    t[2 * i] = static_cast<std::uint64_t>(low);
    const u128 high =
        static_cast<u128>(t[2 * i + 1]) + static_cast<std::uint64_t>(square >> 64) + (low >> 64);
    t[2 * i + 1] = static_cast<std::uint64_t>(high);
    carry = static_cast<std::uint64_t>(high >> 64);
  }
}

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_LIMBS_H_
