/* Starling's Poly1305 context for Mbed TLS (MBEDTLS_POLY1305_ALT in
 * net/tls/mbedtls_config.h; the functions are in poly1305.cc). Included by
 * Mbed TLS's mbedtls/poly1305.h in place of its own context, inside its
 * extern "C" block: C, no includes of its own beyond the integer types. */
#ifndef STARLING_NET_TLS_CHACHAPOLY_POLY1305_ALT_H_
#define STARLING_NET_TLS_CHACHAPOLY_POLY1305_ALT_H_

#include <stddef.h>
#include <stdint.h>

typedef struct mbedtls_poly1305_context {
  /* r, clamped (RFC 8439 section 2.5), in two 64-bit limbs. */
  uint64_t r[2];
  /* s, the key's second half, added to the tag at the end. */
  uint64_t s[2];
  /* The accumulator, h[0] + h[1] * 2^64 + h[2] * 2^128, kept below
   * 2^130 plus a few multiples of it between blocks. */
  uint64_t h[3];
  /* A partial block waiting for the rest of its 16 bytes. */
  uint8_t queue[16];
  size_t queue_len;
} mbedtls_poly1305_context;

#endif /* STARLING_NET_TLS_CHACHAPOLY_POLY1305_ALT_H_ */
