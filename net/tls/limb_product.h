#ifndef STARLING_NET_TLS_LIMB_PRODUCT_H_
#define STARLING_NET_TLS_LIMB_PRODUCT_H_

#include <cstdint>

// The full 512-bit product of two 256-bit numbers in four 64-bit limbs
// (little-endian limb order), which both of Starling's curve fields start
// from before reducing by their own prime (net/tls/p256/field.cc,
// net/tls/x25519/public_key.cc). On RV64 a limb product is one `mul` and one
// `mulhu`. Inline: a field product is most of its callers' cost, and a call
// per product would add a tenth.
namespace starling::net::tls {

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

#endif  // STARLING_NET_TLS_LIMB_PRODUCT_H_
