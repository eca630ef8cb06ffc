// Poly1305 by whole 16-byte blocks, for ChaCha20-Poly1305's one-call
// encrypt and decrypt (chachapoly.cc), which know where their padding goes
// and need no partial-block queue. Functions in poly1305.cc.
#ifndef STARLING_NET_TLS_CHACHAPOLY_POLY1305_BLOCKS_H_
#define STARLING_NET_TLS_CHACHAPOLY_POLY1305_BLOCKS_H_

#include <cstddef>
#include <cstdint>

#include "mbedtls/poly1305.h"

namespace starling::net::tls::chachapoly {

// `data` and then zeros to the next 16-byte boundary (RFC 8439 section
// 2.8's padding), as whole blocks. Only between blocks: the context's
// queue must be empty (it is after mbedtls_poly1305_starts()).
void poly1305_absorb_padded(mbedtls_poly1305_context* ctx, const unsigned char* data,
                            std::size_t size);
// The last block of RFC 8439 section 2.8: both lengths, little-endian.
void poly1305_absorb_lengths(mbedtls_poly1305_context* ctx, std::uint64_t aad_bytes,
                             std::uint64_t ciphertext_bytes);

}  // namespace starling::net::tls::chachapoly

#endif  // STARLING_NET_TLS_CHACHAPOLY_POLY1305_BLOCKS_H_
