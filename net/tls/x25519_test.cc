// X25519 through PSA Crypto, as TLS 1.3's key share uses it: the public key
// of a key pair (Everest's HACL* Curve25519 by net/tls/patches/0003) and the
// agreement (Everest, MBEDTLS_ECDH_VARIANT_EVEREST_ENABLED), against RFC
// 7748 section 6.1's keys, and a generated pair agreeing both ways.

#include <array>
#include <cstdint>

#include "gtest/gtest.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/rfc7748_keys.h"
#include "psa/crypto.h"

namespace starling::net::tls {
namespace {

using Bytes = std::array<std::uint8_t, 32>;

using rfc7748::kAlicePrivate;
using rfc7748::kAlicePublic;
using rfc7748::kBobPrivate;
using rfc7748::kBobPublic;
using rfc7748::kShared;

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
