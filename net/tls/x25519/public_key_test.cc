// The fixed-base comb against the Montgomery ladder it replaces for public
// keys: Everest's HACL* X25519(k, 9), the code the agreement runs. Every
// table entry is reached: 2,000 random scalars give each of the 32 rows
// each digit magnitude about 200 times, with both signs.

#include "net/tls/x25519/public_key.h"

#include <array>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"

extern "C" {
#include "everest/Hacl_Curve25519.h"  // C, without its own extern "C"
}

namespace starling::net::tls::x25519 {
namespace {

using Bytes = std::array<std::uint8_t, 32>;

Bytes by_comb(const Bytes& secret) {
  Bytes out{};
  starling_x25519_public_key(out.data(), secret.data());
  return out;
}

Bytes by_ladder(Bytes secret) {
  std::uint8_t base_point[32] = {9};
  Bytes out{};
  Hacl_Curve25519_crypto_scalarmult(out.data(), secret.data(), base_point);
  return out;
}

TEST(X25519PublicKey, Rfc7748Keys) {
  // RFC 7748 section 6.1: Alice's and Bob's private and public keys.
  const Bytes alice = {0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
                       0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
                       0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a};
  const Bytes alice_public = {0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d,
                              0xdc, 0xb4, 0x3e, 0xf7, 0x5a, 0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38,
                              0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a};
  const Bytes bob = {0x5d, 0xab, 0x08, 0x7e, 0x62, 0x4a, 0x8a, 0x4b, 0x79, 0xe1, 0x7f,
                     0x8b, 0x83, 0x80, 0x0e, 0xe6, 0x6f, 0x3b, 0xb1, 0x29, 0x26, 0x18,
                     0xb6, 0xfd, 0x1c, 0x2f, 0x8b, 0x27, 0xff, 0x88, 0xe0, 0xeb};
  const Bytes bob_public = {0xde, 0x9e, 0xdb, 0x7d, 0x7b, 0x7d, 0xc1, 0xb4, 0xd3, 0x5b, 0x61,
                            0xc2, 0xec, 0xe4, 0x35, 0x37, 0x3f, 0x83, 0x43, 0xc8, 0x5b, 0x78,
                            0x67, 0x4d, 0xad, 0xfc, 0x7e, 0x14, 0x6f, 0x88, 0x2b, 0x4f};
  EXPECT_EQ(by_comb(alice), alice_public);
  EXPECT_EQ(by_comb(bob), bob_public);
}

TEST(X25519PublicKey, EdgeScalarsMatchTheLadder) {
  // Clamping decides what these become: all zero is 2^254, all ones
  // 2^255 - 8; single bits and runs reach the top and bottom digits and the
  // signed recoding's longest carry chains.
  std::array<Bytes, 8> secrets{};
  secrets[1].fill(0xff);
  secrets[2].fill(0x88);
  secrets[3].fill(0x77);
  secrets[4][0] = 8;
  secrets[5][31] = 0x3f;
  secrets[6].fill(0xf8);
  for (std::size_t i = 0; i < 32; ++i) secrets[7][i] = static_cast<std::uint8_t>(i * 37);
  for (const Bytes& secret : secrets) EXPECT_EQ(by_comb(secret), by_ladder(secret));
}

TEST(X25519PublicKey, RandomScalarsMatchTheLadder) {
  std::mt19937_64 random(0x25519);
  for (int n = 0; n < 2000; ++n) {
    Bytes secret;
    for (auto& byte : secret) byte = static_cast<std::uint8_t>(random());
    ASSERT_EQ(by_comb(secret), by_ladder(secret)) << "scalar number " << n;
  }
}

TEST(X25519PublicKey, UnclampedBitsAreIgnored) {
  // X25519 clears bits 0-2 and 255 and sets 254 whatever the input holds.
  Bytes secret{};
  for (std::size_t i = 0; i < 32; ++i) secret[i] = static_cast<std::uint8_t>(0xa5 ^ i);
  Bytes other = secret;
  other[0] ^= 7;
  other[31] ^= 0xc0;
  EXPECT_EQ(by_comb(secret), by_comb(other));
}

}  // namespace
}  // namespace starling::net::tls::x25519
