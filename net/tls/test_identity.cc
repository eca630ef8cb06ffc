#include "net/tls/test_identity.h"

#include <vector>

#include "mbedtls/pk.h"
#include "mbedtls/x509_crt.h"

extern "C" {
#include "mbedtls/psa_util.h"
}

namespace starling::net::tls::testing {

TestIdentity make_test_identity(KeyType type) {
  TestIdentity out;
  mbedtls_pk_context key;
  mbedtls_pk_init(&key);
  mbedtls_x509write_cert writer;
  mbedtls_x509write_crt_init(&writer);
  std::vector<unsigned char> pem(8192);
  const bool rsa = type == KeyType::kRsa2048;
  bool ok = mbedtls_pk_setup(
                &key, mbedtls_pk_info_from_type(rsa ? MBEDTLS_PK_RSA : MBEDTLS_PK_ECKEY)) == 0;
  if (ok) {
    ok = rsa ? mbedtls_rsa_gen_key(mbedtls_pk_rsa(key), mbedtls_psa_get_random,
                                   MBEDTLS_PSA_RANDOM_STATE, 2048, 65537) == 0
             : mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(key),
                                   mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE) == 0;
  }
  const unsigned char serial[] = {0x01, 0x23};
  if (ok) {
    mbedtls_x509write_crt_set_subject_key(&writer, &key);
    mbedtls_x509write_crt_set_issuer_key(&writer, &key);
    mbedtls_x509write_crt_set_md_alg(&writer, MBEDTLS_MD_SHA256);
    ok = mbedtls_x509write_crt_set_subject_name(&writer, "CN=starling.test") == 0 &&
         mbedtls_x509write_crt_set_issuer_name(&writer, "CN=starling.test") == 0 &&
         mbedtls_x509write_crt_set_serial_raw(&writer, const_cast<unsigned char*>(serial),
                                              sizeof serial) == 0 &&
         mbedtls_x509write_crt_set_validity(&writer, "20260101000000", "20360101000000") == 0 &&
         mbedtls_x509write_crt_set_basic_constraints(&writer, 0, -1) == 0 &&
         mbedtls_x509write_crt_pem(&writer, pem.data(), pem.size(), mbedtls_psa_get_random,
                                   MBEDTLS_PSA_RANDOM_STATE) == 0;
  }
  if (ok) {
    out.cert_pem.assign(reinterpret_cast<const char*>(pem.data()));
    ok = mbedtls_pk_write_key_pem(&key, pem.data(), pem.size()) == 0;
  }
  if (ok) out.key_pem.assign(reinterpret_cast<const char*>(pem.data()));
  if (!ok) out = {};
  mbedtls_x509write_crt_free(&writer);
  mbedtls_pk_free(&key);
  return out;
}

}  // namespace starling::net::tls::testing
