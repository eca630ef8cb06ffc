#ifndef STARLING_NET_TLS_TEST_IDENTITY_H_
#define STARLING_NET_TLS_TEST_IDENTITY_H_

#include <cstddef>
#include <span>
#include <string>

// Test-only: a throwaway self-signed certificate and its key, made in
// memory with Mbed TLS (ECDSA P-256 by default, or RSA 2048), as PEM text.
// CN and the one DNS name are "starling.test". Valid 2026-2036 (nothing
// here checks dates: docs/tls.md).
namespace starling::net::tls::testing {

enum class KeyType { kEcdsaP256, kRsa2048 };

struct TestIdentity {
  std::string cert_pem;  // NUL not included
  std::string key_pem;
  std::span<const std::byte> cert() const { return std::as_bytes(std::span(cert_pem)); }
  std::span<const std::byte> key() const { return std::as_bytes(std::span(key_pem)); }
};

// Empty strings if Mbed TLS failed (init_mbedtls() first).
TestIdentity make_test_identity(KeyType type = KeyType::kEcdsaP256);

}  // namespace starling::net::tls::testing

#endif  // STARLING_NET_TLS_TEST_IDENTITY_H_
