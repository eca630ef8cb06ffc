#ifndef STARLING_KERNEL_LIB_SIPHASH_H_
#define STARLING_KERNEL_LIB_SIPHASH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash, short and
// fast on small inputs, whose output an attacker who does not know the
// 128-bit key cannot predict. Starling uses it where a peer must not guess a
// value: TCP initial sequence numbers (RFC 6528's F()). Little-endian words
// as the reference implementation reads them.
namespace starling {

struct SipKey {
  std::uint64_t k0 = 0;
  std::uint64_t k1 = 0;
};

namespace detail {
constexpr std::uint64_t rotl(std::uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}
struct SipState {
  std::uint64_t v0, v1, v2, v3;
  constexpr void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  constexpr void absorb(std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};
}  // namespace detail

constexpr std::uint64_t siphash24(const SipKey& key, std::span<const std::uint8_t> data) {
  detail::SipState s{key.k0 ^ 0x736f6d6570736575ULL, key.k1 ^ 0x646f72616e646f6dULL,
                     key.k0 ^ 0x6c7967656e657261ULL, key.k1 ^ 0x7465646279746573ULL};
  const std::size_t whole = data.size() & ~std::size_t{7};
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t m = 0;
    for (std::size_t j = 0; j < 8; ++j) m |= std::uint64_t{data[i + j]} << (8 * j);
    s.absorb(m);
  }
  // The last block: the remaining bytes, the length's low byte on top.
  std::uint64_t last = std::uint64_t{data.size() & 0xFF} << 56;
  for (std::size_t j = 0; whole + j < data.size(); ++j) {
    last |= std::uint64_t{data[whole + j]} << (8 * j);
  }
  s.absorb(last);
  s.v2 ^= 0xFF;
  s.round();
  s.round();
  s.round();
  s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace starling

#endif  // STARLING_KERNEL_LIB_SIPHASH_H_
