/* Starling's ChaCha20-Poly1305 context for Mbed TLS (MBEDTLS_CHACHAPOLY_ALT
 * in net/tls/mbedtls_config.h; the functions are in chachapoly.cc): the
 * portable code's fields, so the streaming calls keep their meaning.
 * Included by Mbed TLS's mbedtls/chachapoly.h in place of its own context,
 * inside its extern "C" block, after mbedtls_chachapoly_mode_t. C. */
#ifndef STARLING_NET_TLS_CHACHAPOLY_CHACHAPOLY_ALT_H_
#define STARLING_NET_TLS_CHACHAPOLY_CHACHAPOLY_ALT_H_

#include <stdint.h>

#include "mbedtls/chacha20.h"
#include "mbedtls/poly1305.h"

typedef struct mbedtls_chachapoly_context {
  mbedtls_chacha20_context chacha20_ctx;
  mbedtls_poly1305_context poly1305_ctx;
  uint64_t aad_len;        /* bytes of additional data so far */
  uint64_t ciphertext_len; /* bytes of ciphertext so far */
  int state;               /* chachapoly.cc's State */
  mbedtls_chachapoly_mode_t mode;
} mbedtls_chachapoly_context;

#endif /* STARLING_NET_TLS_CHACHAPOLY_CHACHAPOLY_ALT_H_ */
