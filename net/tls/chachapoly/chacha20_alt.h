/* Starling's ChaCha20 context for Mbed TLS (MBEDTLS_CHACHA20_ALT in
 * net/tls/mbedtls_config.h; the functions are in chacha20.cc). Included by
 * Mbed TLS's mbedtls/chacha20.h in place of its own context, inside its
 * extern "C" block: C, no includes of its own beyond the integer types. */
#ifndef STARLING_NET_TLS_CHACHAPOLY_CHACHA20_ALT_H_
#define STARLING_NET_TLS_CHACHAPOLY_CHACHA20_ALT_H_

#include <stddef.h>
#include <stdint.h>

typedef struct mbedtls_chacha20_context {
  /* The block function's input: constants, key, block counter, nonce
   * (RFC 8439 section 2.3). */
  uint32_t state[16];
  /* The last block's keystream as eight little-endian 64-bit words, for
   * the rest of a block an update ended inside. */
  uint64_t keystream[8];
  /* Bytes of `keystream` used: 64 when none is left. */
  size_t keystream_used;
} mbedtls_chacha20_context;

#endif /* STARLING_NET_TLS_CHACHAPOLY_CHACHA20_ALT_H_ */
