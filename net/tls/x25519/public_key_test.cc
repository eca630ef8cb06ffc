// The fixed-base comb against the Montgomery ladder it replaces for public
// keys: Everest's HACL* X25519(k, 9), the code the agreement runs. Every
// table entry is reached: 2,000 random scalars give each of the 32 rows
// each digit magnitude about 200 times, with both signs.

#include "net/tls/x25519/public_key.h"

#include <array>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"
#include "net/tls/rfc7748_keys.h"

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
  // RFC 7748 section 6.1's keys.
  EXPECT_EQ(by_comb(rfc7748::kAlicePrivate), rfc7748::kAlicePublic);
  EXPECT_EQ(by_comb(rfc7748::kBobPrivate), rfc7748::kBobPublic);
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
