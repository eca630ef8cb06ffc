// Poly1305 (RFC 8439 section 2.5) for Mbed TLS's MBEDTLS_POLY1305_ALT hook:
// the same API and results as Mbed TLS's portable library/poly1305.c, in
// 64-bit limbs where that code uses 32-bit ones (docs/tls.md, "What a
// record costs").
//
// The arithmetic, in radix 2^64: r = r0 + r1 * 2^64 (clamped, so r0 and r1
// are below 2^60 and r1 is a multiple of 4) and the accumulator h = h0 + h1
// * 2^64 + h2 * 2^128, with h2 a few bits. Modulo p = 2^130 - 5, 2^130 is 5,
// so the product's 2^128 * h1 * r1 term is h1 * (5 * r1 / 4) = h1 * s1 with
// s1 = r1 + r1 / 4 (exact, r1 being a multiple of 4), and its 2^192 * h2 *
// r1 term is 2^64 * h2 * s1. Then
//     d0 = h0 * r0 + h1 * s1
//     d1 = h0 * r1 + h1 * r0 + h2 * s1 + carry(d0)
//     d2 = h2 * r0 + carry(d1)
// each below 2^126 (d2 below 2^64), and the bits of d2 from 2^130 up come
// back in at the bottom times 5: four 64x64->128 products (RV64's mul and
// mulhu pairs) and one plain one a block, where the 32-bit code makes
// twenty-five 32x32->64 products.
//
// The message is read as 64-bit words where the caller's buffer is aligned
// or, as TLS's in-place records are (13 bytes into Mbed TLS's buffers), by
// aligned loads shifted together; a byte outside the caller's buffer is
// never read, and nothing is loaded unaligned (these cores trap on it).
//
// Constant time: no branch or address depends on the key, the message's
// value or the accumulator; the final reduction selects by mask.
#include <cstddef>
#include <cstdint>

#include "mbedtls/platform_util.h"
#include "mbedtls/poly1305.h"
#include "net/tls/chachapoly/poly1305_blocks.h"

// Named so profiles (//bench/cost:tls_profile) file these helpers under
// ChaCha20-Poly1305.
namespace starling::net::tls::chachapoly {
namespace {

using u128 = unsigned __int128;

constexpr std::size_t kBlockBytes = 16;

std::uint64_t load64_le(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void store64_le(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t load_aligned(const unsigned char* p) {
  std::uint64_t w;
  __builtin_memcpy(&w, __builtin_assume_aligned(p, 8), 8);
  return w;
}

bool word_aligned(const unsigned char* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 7) == 0;
}

// The key's and the tag's words: one load or store where the caller's
// buffer is aligned (ChaCha20-Poly1305's key block, on Mbed TLS's stack,
// is), bytes otherwise. Byte by byte, a record's key took ~100
// instructions (a keep-alive HTTPS request has two records).
std::uint64_t key_word(const unsigned char* p) {
  return word_aligned(p) ? load_aligned(p) : load64_le(p);
}

void put_tag_word(unsigned char* p, std::uint64_t v) {
  if (word_aligned(p)) {
    __builtin_memcpy(__builtin_assume_aligned(p, 8), &v, 8);
  } else {
    store64_le(p, v);
  }
}

// h and r for a run of blocks, in registers.
struct Accumulator {
  std::uint64_t r0, r1, s1;
  std::uint64_t h0, h1, h2;
  std::uint64_t pad_bit;

  static Accumulator of(const mbedtls_poly1305_context* ctx, std::uint64_t pad_bit) {
    return {.r0 = ctx->r[0],
            .r1 = ctx->r[1],
            .s1 = ctx->r[1] + (ctx->r[1] >> 2),
            .h0 = ctx->h[0],
            .h1 = ctx->h[1],
            .h2 = ctx->h[2],
            .pad_bit = pad_bit};
  }
  void store(mbedtls_poly1305_context* ctx) const {
    ctx->h[0] = h0;
    ctx->h[1] = h1;
    ctx->h[2] = h2;
  }

  // h = (h + m + pad_bit * 2^128) * r, modulo p only partly: h2 keeps two
  // bits and what carries in.
  [[gnu::always_inline]] void add_block(std::uint64_t m0, std::uint64_t m1) {
    u128 t = static_cast<u128>(h0) + m0;
    h0 = static_cast<std::uint64_t>(t);
    t = static_cast<u128>(h1) + m1 + static_cast<std::uint64_t>(t >> 64);
    h1 = static_cast<std::uint64_t>(t);
    h2 += static_cast<std::uint64_t>(t >> 64) + pad_bit;
    const u128 d0 = static_cast<u128>(h0) * r0 + static_cast<u128>(h1) * s1;
    u128 d1 = static_cast<u128>(h0) * r1 + static_cast<u128>(h1) * r0 + static_cast<u128>(h2) * s1;
    d1 += static_cast<std::uint64_t>(d0 >> 64);
    const std::uint64_t d2 = h2 * r0 + static_cast<std::uint64_t>(d1 >> 64);
    h0 = static_cast<std::uint64_t>(d0);
    h1 = static_cast<std::uint64_t>(d1);
    h2 = d2 & 3;
    // 2^130 * (d2 >> 2) is 5 * (d2 >> 2), added at the bottom.
    const std::uint64_t c = (d2 & ~std::uint64_t{3}) + (d2 >> 2);
    t = static_cast<u128>(h0) + c;
    h0 = static_cast<std::uint64_t>(t);
    t = static_cast<u128>(h1) + static_cast<std::uint64_t>(t >> 64);
    h1 = static_cast<std::uint64_t>(t);
    h2 += static_cast<std::uint64_t>(t >> 64);
  }
};

// Absorbs `blocks` (at least one) 16-byte blocks, each with 2^128 added
// (`pad_bit` 1) or not (0, the final partial block, which carries its own
// 1 byte).
void absorb(mbedtls_poly1305_context* ctx, const unsigned char* message, std::size_t blocks,
            std::uint64_t pad_bit) {
  Accumulator a = Accumulator::of(ctx, pad_bit);
  const auto misalignment = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(message) & 7);
  if (misalignment == 0) {
    for (std::size_t b = 0; b < blocks; ++b, message += kBlockBytes) {
      a.add_block(load_aligned(message), load_aligned(message + 8));
    }
  } else {
    // Every little-endian word of the message straddles two aligned words:
    // the high bytes of one, the low bytes of the next, joined by shifts.
    // The bytes before the first aligned address, and the last word's
    // bytes after the last aligned word inside the message, are read one
    // at a time: nothing past either end is touched.
    const unsigned head = 8 - misalignment;
    const unsigned low_bits = 8 * head;            // the carried bytes' share of a word
    const unsigned high_shift = 8 * misalignment;  // what is left of an aligned word
    std::uint64_t carry = 0;
    for (unsigned i = 0; i < head; ++i) carry |= static_cast<std::uint64_t>(message[i]) << (8 * i);
    const unsigned char* next = message + head;
    for (std::size_t b = 0; b + 1 < blocks; ++b, next += kBlockBytes) {
      const std::uint64_t w0 = load_aligned(next);
      const std::uint64_t w1 = load_aligned(next + 8);
      a.add_block(carry | w0 << low_bits, w0 >> high_shift | w1 << low_bits);
      carry = w1 >> high_shift;
    }
    const std::uint64_t w0 = load_aligned(next);
    std::uint64_t w1 = 0;
    for (unsigned i = 0; i < misalignment; ++i)
      w1 |= static_cast<std::uint64_t>(next[8 + i]) << (8 * i);
    a.add_block(carry | w0 << low_bits, w0 >> high_shift | w1 << low_bits);
  }
  a.store(ctx);
}

}  // namespace

void poly1305_absorb_padded(mbedtls_poly1305_context* ctx, const unsigned char* data,
                            std::size_t size) {
  const std::size_t blocks = size / kBlockBytes;
  if (blocks > 0) absorb(ctx, data, blocks, 1);
  const std::size_t tail = size - blocks * kBlockBytes;
  if (tail == 0) return;
  // The partial block and its zeros: a whole block, so 2^128 is added too.
  alignas(8) unsigned char last[kBlockBytes] = {};
  data += blocks * kBlockBytes;
  for (std::size_t i = 0; i < tail; ++i) last[i] = data[i];
  absorb(ctx, last, 1, 1);
}

void poly1305_absorb_lengths(mbedtls_poly1305_context* ctx, std::uint64_t aad_bytes,
                             std::uint64_t ciphertext_bytes) {
  Accumulator a = Accumulator::of(ctx, 1);
  a.add_block(aad_bytes, ciphertext_bytes);
  a.store(ctx);
}

}  // namespace starling::net::tls::chachapoly

using namespace starling::net::tls::chachapoly;  // NOLINT: the C API below uses them

void mbedtls_poly1305_init(mbedtls_poly1305_context* ctx) {
  mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

void mbedtls_poly1305_free(mbedtls_poly1305_context* ctx) {
  if (ctx != nullptr) mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

int mbedtls_poly1305_starts(mbedtls_poly1305_context* ctx, const unsigned char key[32]) {
  // r's clamp (RFC 8439 section 2.5): the top four bits of every 32-bit
  // word and the bottom two of the last three cleared.
  ctx->r[0] = key_word(key) & 0x0ffffffc0fffffffULL;
  ctx->r[1] = key_word(key + 8) & 0x0ffffffc0ffffffcULL;
  ctx->s[0] = key_word(key + 16);
  ctx->s[1] = key_word(key + 24);
  ctx->h[0] = ctx->h[1] = ctx->h[2] = 0;
  // The queue is read only up to queue_len, so it is emptied, not zeroed as
  // the portable code zeroes it: TLS's messages here are the AAD and the
  // ciphertext, not secrets, and mbedtls_poly1305_free() zeroes the
  // context (~75 instructions a keep-alive request, two records).
  ctx->queue_len = 0;
  return 0;
}

int mbedtls_poly1305_update(mbedtls_poly1305_context* ctx, const unsigned char* input,
                            std::size_t ilen) {
  if (ctx->queue_len > 0) {
    // Fill the partial block first.
    std::size_t take = kBlockBytes - ctx->queue_len;
    if (take > ilen) take = ilen;
    for (std::size_t i = 0; i < take; ++i) ctx->queue[ctx->queue_len + i] = input[i];
    ctx->queue_len += take;
    input += take;
    ilen -= take;
    if (ctx->queue_len < kBlockBytes) return 0;
    absorb(ctx, ctx->queue, 1, 1);
    ctx->queue_len = 0;
  }
  const std::size_t blocks = ilen / kBlockBytes;
  if (blocks > 0) absorb(ctx, input, blocks, 1);
  input += blocks * kBlockBytes;
  ilen -= blocks * kBlockBytes;
  for (std::size_t i = 0; i < ilen; ++i) ctx->queue[i] = input[i];
  ctx->queue_len = ilen;
  return 0;
}

int mbedtls_poly1305_finish(mbedtls_poly1305_context* ctx, unsigned char mac[16]) {
  if (ctx->queue_len > 0) {
    // The last partial block: a 1 byte after it, zeros to the end, and no
    // 2^128 (RFC 8439 section 2.5.1).
    ctx->queue[ctx->queue_len] = 1;
    for (std::size_t i = ctx->queue_len + 1; i < kBlockBytes; ++i) ctx->queue[i] = 0;
    absorb(ctx, ctx->queue, 1, 0);
    ctx->queue_len = 0;
  }
  std::uint64_t h0 = ctx->h[0];
  std::uint64_t h1 = ctx->h[1];
  std::uint64_t h2 = ctx->h[2];
  // Carry what is above 2^130 in once more: h < 2^130 + a few * 5 < 2p.
  std::uint64_t c = (h2 & ~std::uint64_t{3}) + (h2 >> 2);
  h2 &= 3;
  u128 t = static_cast<u128>(h0) + c;
  h0 = static_cast<std::uint64_t>(t);
  t = static_cast<u128>(h1) + static_cast<std::uint64_t>(t >> 64);
  h1 = static_cast<std::uint64_t>(t);
  h2 += static_cast<std::uint64_t>(t >> 64);
  // h mod p: g = h + 5 reaches 2^130 exactly when h >= p, and then h - p is
  // g's low 130 bits. Selected by mask, not by a branch.
  t = static_cast<u128>(h0) + 5;
  const std::uint64_t g0 = static_cast<std::uint64_t>(t);
  t = static_cast<u128>(h1) + static_cast<std::uint64_t>(t >> 64);
  const std::uint64_t g1 = static_cast<std::uint64_t>(t);
  const std::uint64_t g2 = h2 + static_cast<std::uint64_t>(t >> 64);
  const std::uint64_t use_g = 0 - (g2 >> 2);  // all ones when g >= 2^130
  h0 = (h0 & ~use_g) | (g0 & use_g);
  h1 = (h1 & ~use_g) | (g1 & use_g);
  // tag = (h + s) mod 2^128
  t = static_cast<u128>(h0) + ctx->s[0];
  put_tag_word(mac, static_cast<std::uint64_t>(t));
  put_tag_word(mac + 8, h1 + ctx->s[1] + static_cast<std::uint64_t>(t >> 64));
  return 0;
}

int mbedtls_poly1305_mac(const unsigned char key[32], const unsigned char* input, std::size_t ilen,
                         unsigned char mac[16]) {
  mbedtls_poly1305_context ctx;
  mbedtls_poly1305_init(&ctx);
  mbedtls_poly1305_starts(&ctx, key);
  mbedtls_poly1305_update(&ctx, input, ilen);
  mbedtls_poly1305_finish(&ctx, mac);
  mbedtls_poly1305_free(&ctx);
  return 0;
}
