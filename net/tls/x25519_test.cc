// X25519 through PSA Crypto, as TLS 1.3's key share uses it: the public key
// of a key pair (Everest's HACL* Curve25519 by net/tls/patches/0003) and the
// agreement (Everest, MBEDTLS_ECDH_VARIANT_EVEREST_ENABLED), against RFC
// 7748 section 6.1's keys, and a generated pair agreeing both ways.

#include <array>
#include <cstdint>

#include "gtest/gtest.h"
#include "net/tls/mbedtls_port.h"
#include "psa/crypto.h"

namespace starling::net::tls {
namespace {

using Bytes = std::array<std::uint8_t, 32>;

constexpr Bytes kAlicePrivate = {0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
                                 0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
                                 0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a};
constexpr Bytes kAlicePublic = {0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d,
                                0xdc, 0xb4, 0x3e, 0xf7, 0x5a, 0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38,
                                0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a};
constexpr Bytes kBobPrivate = {0x5d, 0xab, 0x08, 0x7e, 0x62, 0x4a, 0x8a, 0x4b, 0x79, 0xe1, 0x7f,
                               0x8b, 0x83, 0x80, 0x0e, 0xe6, 0x6f, 0x3b, 0xb1, 0x29, 0x26, 0x18,
                               0xb6, 0xfd, 0x1c, 0x2f, 0x8b, 0x27, 0xff, 0x88, 0xe0, 0xeb};
constexpr Bytes kBobPublic = {0xde, 0x9e, 0xdb, 0x7d, 0x7b, 0x7d, 0xc1, 0xb4, 0xd3, 0x5b, 0x61,
                              0xc2, 0xec, 0xe4, 0x35, 0x37, 0x3f, 0x83, 0x43, 0xc8, 0x5b, 0x78,
                              0x67, 0x4d, 0xad, 0xfc, 0x7e, 0x14, 0x6f, 0x88, 0x2b, 0x4f};
constexpr Bytes kShared = {0x4a, 0x5d, 0x9d, 0x5b, 0xa4, 0xce, 0x2d, 0xe1, 0x72, 0x8e, 0x3b,
                           0xf4, 0x80, 0x35, 0x0f, 0x25, 0xe0, 0x7e, 0x21, 0xc9, 0x47, 0xd1,
                           0x9e, 0x33, 0x76, 0xf0, 0x9b, 0x3c, 0x1e, 0x16, 0x17, 0x42};

psa_key_attributes_t x25519_pair() {
  psa_key_attributes_t attributes = PSA_KEY_ATTRIBUTES_INIT;
  psa_set_key_type(&attributes, PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_MONTGOMERY));
  psa_set_key_bits(&attributes, 255);
  psa_set_key_usage_flags(&attributes, PSA_KEY_USAGE_DERIVE | PSA_KEY_USAGE_EXPORT);
  psa_set_key_algorithm(&attributes, PSA_ALG_ECDH);
  return attributes;
}

struct Key {
  explicit Key(const Bytes& secret) {
    const psa_key_attributes_t attributes = x25519_pair();
    status = psa_import_key(&attributes, secret.data(), secret.size(), &id);
  }
  Key() {
    const psa_key_attributes_t attributes = x25519_pair();
    status = psa_generate_key(&attributes, &id);
  }
  ~Key() { psa_destroy_key(id); }
  Bytes public_key() const {
    Bytes out{};
    std::size_t length = 0;
    EXPECT_EQ(psa_export_public_key(id, out.data(), out.size(), &length), PSA_SUCCESS);
    EXPECT_EQ(length, out.size());
    return out;
  }
  Bytes agree(const Bytes& peer) const {
    Bytes out{};
    std::size_t length = 0;
    EXPECT_EQ(psa_raw_key_agreement(PSA_ALG_ECDH, id, peer.data(), peer.size(), out.data(),
                                    out.size(), &length),
              PSA_SUCCESS);
    EXPECT_EQ(length, out.size());
    return out;
  }
  psa_key_id_t id = 0;
  psa_status_t status = PSA_ERROR_GENERIC_ERROR;
};

class X25519Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(init_mbedtls().ok()); }
};

TEST_F(X25519Test, PublicKeysOfRfc7748) {
  const Key alice(kAlicePrivate), bob(kBobPrivate);
  ASSERT_EQ(alice.status, PSA_SUCCESS);
  ASSERT_EQ(bob.status, PSA_SUCCESS);
  EXPECT_EQ(alice.public_key(), kAlicePublic);
  EXPECT_EQ(bob.public_key(), kBobPublic);
}

TEST_F(X25519Test, SharedSecretOfRfc7748) {
  const Key alice(kAlicePrivate), bob(kBobPrivate);
  EXPECT_EQ(alice.agree(kBobPublic), kShared);
  EXPECT_EQ(bob.agree(kAlicePublic), kShared);
}

TEST_F(X25519Test, GeneratedPairsAgree) {
  for (int i = 0; i < 8; ++i) {
    const Key ours, theirs;
    ASSERT_EQ(ours.status, PSA_SUCCESS);
    ASSERT_EQ(theirs.status, PSA_SUCCESS);
    const Bytes secret = ours.agree(theirs.public_key());
    EXPECT_EQ(secret, theirs.agree(ours.public_key()));
    EXPECT_NE(secret, Bytes{});
  }
}

}  // namespace
}  // namespace starling::net::tls
