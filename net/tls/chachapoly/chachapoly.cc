// ChaCha20-Poly1305 (RFC 8439 section 2.8) for Mbed TLS's
// MBEDTLS_CHACHAPOLY_ALT hook: the same API, states and results as Mbed
// TLS's portable library/chachapoly.c, over chacha20.cc and poly1305.cc.
//
// Why not the portable code over those two: a TLS record is one call
// (mbedtls_chachapoly_encrypt_and_tag or _auth_decrypt, from the cipher
// layer), and the portable code makes it a dozen, each through Poly1305's
// partial-block queue a byte at a time: the 5-byte additional data, 11
// zeros to pad it, the ciphertext's last partial block, its zeros, the
// lengths as 16 bytes built and then queued. A keep-alive HTTPS request's
// two records spent ~1,500 instructions there (docs/tls.md, "What a record
// costs"; //bench/cost:http_profile). The one-call path here absorbs whole
// blocks, pads in place, takes the lengths as two words, and reads the
// Poly1305 key from an aligned block. The streaming calls (starts,
// update_aad, update, finish: PSA's multi-part AEAD) go through the queue
// as the portable code does.
#include <cstddef>
#include <cstdint>

#include "mbedtls/chachapoly.h"
#include "mbedtls/platform_util.h"
// constant_time.h declares mbedtls_ct_memcmp without C linkage for C++.
extern "C" {
#include "mbedtls/constant_time.h"
}
#include "net/tls/chachapoly/poly1305_blocks.h"

namespace starling::net::tls::chachapoly {
namespace {

// The portable code's states, the same transitions.
enum State : int { kInit = 0, kAad = 1, kCiphertext = 2, kFinished = 3 };

constexpr std::size_t kBlockBytes = 16;

// The Poly1305 key (RFC 8439 section 2.6): block 0 of the keystream, of
// which the first 32 bytes are used; the ChaCha20 context is then at block
// 1, where the data starts.
int start_record(mbedtls_chachapoly_context* ctx, const unsigned char nonce[12]) {
  int r = mbedtls_chacha20_starts(&ctx->chacha20_ctx, nonce, 0);
  if (r != 0) return r;
  alignas(8) unsigned char key[64] = {};
  r = mbedtls_chacha20_update(&ctx->chacha20_ctx, sizeof(key), key, key);
  if (r == 0) r = mbedtls_poly1305_starts(&ctx->poly1305_ctx, key);
  mbedtls_platform_zeroize(key, sizeof(key));
  return r;
}

// Zeros to the next 16-byte boundary after `bytes` bytes, through the
// queue (the streaming calls).
int pad(mbedtls_chachapoly_context* ctx, std::uint64_t bytes) {
  const auto partial = static_cast<std::size_t>(bytes % kBlockBytes);
  if (partial == 0) return 0;
  static constexpr unsigned char kZeros[kBlockBytes] = {};
  return mbedtls_poly1305_update(&ctx->poly1305_ctx, kZeros, kBlockBytes - partial);
}

// One record, either way: the tag over the additional data and the
// ciphertext (`output` when encrypting, `input` when decrypting).
int crypt_and_tag(mbedtls_chachapoly_context* ctx, mbedtls_chachapoly_mode_t mode,
                  std::size_t length, const unsigned char nonce[12], const unsigned char* aad,
                  std::size_t aad_len, const unsigned char* input, unsigned char* output,
                  unsigned char tag[16]) {
  int r = start_record(ctx, nonce);
  if (r != 0) return r;
  poly1305_absorb_padded(&ctx->poly1305_ctx, aad, aad_len);
  if (mode == MBEDTLS_CHACHAPOLY_DECRYPT) {
    poly1305_absorb_padded(&ctx->poly1305_ctx, input, length);
  }
  r = mbedtls_chacha20_update(&ctx->chacha20_ctx, length, input, output);
  if (r != 0) return r;
  if (mode == MBEDTLS_CHACHAPOLY_ENCRYPT) {
    poly1305_absorb_padded(&ctx->poly1305_ctx, output, length);
  }
  poly1305_absorb_lengths(&ctx->poly1305_ctx, aad_len, length);
  ctx->aad_len = aad_len;
  ctx->ciphertext_len = length;
  ctx->mode = mode;
  ctx->state = kFinished;
  return mbedtls_poly1305_finish(&ctx->poly1305_ctx, tag);
}

// No record under way: what init and free leave.
void clear(mbedtls_chachapoly_context* ctx) {
  ctx->aad_len = 0;
  ctx->ciphertext_len = 0;
  ctx->state = kInit;
  ctx->mode = MBEDTLS_CHACHAPOLY_ENCRYPT;
}

}  // namespace
}  // namespace starling::net::tls::chachapoly

using namespace starling::net::tls::chachapoly;  // NOLINT: the C API below uses them

void mbedtls_chachapoly_init(mbedtls_chachapoly_context* ctx) {
  mbedtls_chacha20_init(&ctx->chacha20_ctx);
  mbedtls_poly1305_init(&ctx->poly1305_ctx);
  clear(ctx);
}

void mbedtls_chachapoly_free(mbedtls_chachapoly_context* ctx) {
  if (ctx == nullptr) return;
  mbedtls_chacha20_free(&ctx->chacha20_ctx);
  mbedtls_poly1305_free(&ctx->poly1305_ctx);
  clear(ctx);
}

int mbedtls_chachapoly_setkey(mbedtls_chachapoly_context* ctx, const unsigned char key[32]) {
  return mbedtls_chacha20_setkey(&ctx->chacha20_ctx, key);
}

int mbedtls_chachapoly_starts(mbedtls_chachapoly_context* ctx, const unsigned char nonce[12],
                              mbedtls_chachapoly_mode_t mode) {
  const int r = start_record(ctx, nonce);
  if (r == 0) {
    ctx->aad_len = 0;
    ctx->ciphertext_len = 0;
    ctx->state = kAad;
    ctx->mode = mode;
  }
  return r;
}

int mbedtls_chachapoly_update_aad(mbedtls_chachapoly_context* ctx, const unsigned char* aad,
                                  std::size_t aad_len) {
  if (ctx->state != kAad) return MBEDTLS_ERR_CHACHAPOLY_BAD_STATE;
  ctx->aad_len += aad_len;
  return mbedtls_poly1305_update(&ctx->poly1305_ctx, aad, aad_len);
}

int mbedtls_chachapoly_update(mbedtls_chachapoly_context* ctx, std::size_t len,
                              const unsigned char* input, unsigned char* output) {
  if (ctx->state != kAad && ctx->state != kCiphertext) return MBEDTLS_ERR_CHACHAPOLY_BAD_STATE;
  int r = 0;
  if (ctx->state == kAad) {
    ctx->state = kCiphertext;
    r = pad(ctx, ctx->aad_len);
    if (r != 0) return r;
  }
  ctx->ciphertext_len += len;
  if (ctx->mode == MBEDTLS_CHACHAPOLY_ENCRYPT) {
    r = mbedtls_chacha20_update(&ctx->chacha20_ctx, len, input, output);
    if (r == 0) r = mbedtls_poly1305_update(&ctx->poly1305_ctx, output, len);
  } else {
    r = mbedtls_poly1305_update(&ctx->poly1305_ctx, input, len);
    if (r == 0) r = mbedtls_chacha20_update(&ctx->chacha20_ctx, len, input, output);
  }
  return r;
}

int mbedtls_chachapoly_finish(mbedtls_chachapoly_context* ctx, unsigned char mac[16]) {
  if (ctx->state == kInit) return MBEDTLS_ERR_CHACHAPOLY_BAD_STATE;
  int r = 0;
  if (ctx->state == kAad) {
    r = pad(ctx, ctx->aad_len);
  } else if (ctx->state == kCiphertext) {
    r = pad(ctx, ctx->ciphertext_len);
  }
  if (r != 0) return r;
  ctx->state = kFinished;
  // The queue is empty after the padding: the lengths as one whole block.
  poly1305_absorb_lengths(&ctx->poly1305_ctx, ctx->aad_len, ctx->ciphertext_len);
  return mbedtls_poly1305_finish(&ctx->poly1305_ctx, mac);
}

int mbedtls_chachapoly_encrypt_and_tag(mbedtls_chachapoly_context* ctx, std::size_t length,
                                       const unsigned char nonce[12], const unsigned char* aad,
                                       std::size_t aad_len, const unsigned char* input,
                                       unsigned char* output, unsigned char tag[16]) {
  return crypt_and_tag(ctx, MBEDTLS_CHACHAPOLY_ENCRYPT, length, nonce, aad, aad_len, input, output,
                       tag);
}

int mbedtls_chachapoly_auth_decrypt(mbedtls_chachapoly_context* ctx, std::size_t length,
                                    const unsigned char nonce[12], const unsigned char* aad,
                                    std::size_t aad_len, const unsigned char tag[16],
                                    const unsigned char* input, unsigned char* output) {
  unsigned char check_tag[16];
  const int r = crypt_and_tag(ctx, MBEDTLS_CHACHAPOLY_DECRYPT, length, nonce, aad, aad_len, input,
                              output, check_tag);
  if (r != 0) return r;
  if (mbedtls_ct_memcmp(tag, check_tag, sizeof(check_tag)) != 0) {
    mbedtls_platform_zeroize(output, length);
    return MBEDTLS_ERR_CHACHAPOLY_AUTH_FAILED;
  }
  return 0;
}
