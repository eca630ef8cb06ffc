/* An X25519 public key, k * 9, by a fixed-base comb (public_key.cc): what a
 * TLS 1.3 server computes for every X25519 key share it sends. Mbed TLS's
 * PSA Crypto calls it (net/tls/patches/0006; net/tls/mbedtls_config.h
 * turns it on with STARLING_X25519_PUBLIC_KEY_ALT). C, for the library. */
#ifndef STARLING_NET_TLS_X25519_PUBLIC_KEY_H_
#define STARLING_NET_TLS_X25519_PUBLIC_KEY_H_

#ifdef __cplusplus
extern "C" {
#endif

/* public_key = X25519(secret, 9) (RFC 7748 section 6.1): the secret is
 * clamped as X25519 clamps it, the result is the canonical little-endian
 * u-coordinate. Constant time in the secret; the secret's copies are
 * cleared before returning. */
void starling_x25519_public_key(unsigned char public_key[32], const unsigned char secret[32]);

#ifdef __cplusplus
}
#endif

#endif /* STARLING_NET_TLS_X25519_PUBLIC_KEY_H_ */
