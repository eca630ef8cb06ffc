// ChaCha20 (RFC 8439 section 2.4) for Mbed TLS's MBEDTLS_CHACHA20_ALT hook:
// the same API and results as Mbed TLS's portable library/chacha20.c, with
// what that code spends per record taken out (docs/tls.md, "What a record
// costs"; measured with //bench/cost:tls_profile on the keep-alive request):
//
//  - The keystream is XORed into the data eight bytes at a time where the
//    input and output share their alignment (always, for TLS: records are
//    encrypted and decrypted in place, at 13 bytes into Mbed TLS's buffers),
//    the keystream's words shifted into line with the data's, where the
//    portable code XORs byte by byte (mbedtls_xor: RISC-V is not among the
//    targets Mbed TLS lets load unaligned words). Nothing is ever loaded or
//    stored unaligned: the RV64 cores we run on trap on it. Past a block,
//    the words run on across block boundaries from the block function's
//    registers (crypt_words): a keep-alive request 31,247 -> 29,326.
//  - Each block's keystream goes from the round function's registers to the
//    context as words; the portable code stores it byte by byte, and copies
//    and zeroes a 64-byte working state on the stack for every block.
//  - The rounds are plain 32-bit rotates, which clang emits as one `roriw`
//    with Zbb (toolchain/flags.bzl's -march) and as two shifts and an or
//    without.
//
// No secret is left on the stack: the working state lives in registers (16
// words; RV64 has 31) and the keystream in the context, which
// mbedtls_chacha20_free() zeroes, as the portable code's does.
#include <bit>
#include <cstddef>
#include <cstdint>

#include "mbedtls/chacha20.h"
#include "mbedtls/platform_util.h"

static_assert(std::endian::native == std::endian::little,
              "the keystream's 64-bit words are little-endian byte pairs of the state's words");

// Named so profiles (//bench/cost:tls_profile) file these helpers under
// ChaCha20-Poly1305.
namespace starling::net::tls::chachapoly {
namespace {

constexpr std::size_t kBlockBytes = 64;
constexpr std::size_t kCounterWord = 12;

std::uint32_t load32_le(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

[[gnu::always_inline]] inline void quarter_round(std::uint32_t& a, std::uint32_t& b,
                                                 std::uint32_t& c, std::uint32_t& d) {
  a += b;
  d = std::rotl(d ^ a, 16);
  c += d;
  b = std::rotl(b ^ c, 12);
  a += b;
  d = std::rotl(d ^ a, 8);
  c += d;
  b = std::rotl(b ^ c, 7);
}

// The block function (RFC 8439 section 2.3): twenty rounds over `in`, added
// to `in`, as eight little-endian 64-bit words of keystream. Inlined into
// both callers: crypt_words() keeps `out` in registers.
[[gnu::always_inline]] inline void block(const std::uint32_t in[16], std::uint64_t out[8]) {
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i] = in[i];
  // Unrolled: the loop's counter and branch were 20 instructions a block,
  // and clang schedules across the double rounds; a keep-alive HTTPS
  // request (16 blocks) 18,946 -> 18,601 instructions in ChaCha20, for
  // ~2.5 KiB of .text at each of the two places block() is inlined
  // (//bench/http's closed loop; unrolled twice: 18,747, +0.6 KiB).
#pragma clang loop unroll(full)
  for (int i = 0; i < 10; ++i) {
    quarter_round(x[0], x[4], x[8], x[12]);
    quarter_round(x[1], x[5], x[9], x[13]);
    quarter_round(x[2], x[6], x[10], x[14]);
    quarter_round(x[3], x[7], x[11], x[15]);
    quarter_round(x[0], x[5], x[10], x[15]);
    quarter_round(x[1], x[6], x[11], x[12]);
    quarter_round(x[2], x[7], x[8], x[13]);
    quarter_round(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<std::uint64_t>(x[2 * i] + in[2 * i]) |
             static_cast<std::uint64_t>(x[2 * i + 1] + in[2 * i + 1]) << 32;
  }
}

unsigned char keystream_byte(const std::uint64_t keystream[8], std::size_t i) {
  return static_cast<unsigned char>(keystream[i / 8] >> (8 * (i % 8)));
}

// out[0, n) = in[0, n) ^ keystream bytes [0, n), n <= 64.
void xor_keystream(const std::uint64_t keystream[8], const unsigned char* in, unsigned char* out,
                   std::size_t n) {
  std::size_t i = 0;
  const auto out_address = reinterpret_cast<std::uintptr_t>(out);
  const std::size_t head = (0 - out_address) & 7;
  if (((reinterpret_cast<std::uintptr_t>(in) ^ out_address) & 7) == 0 && head + 8 <= n) {
    // Bytes before the data's first 8-byte boundary, one at a time; then
    // whole words, each keystream word shifted by those bytes and filled
    // from the next (which exists: a word ending at byte 63 starts at a
    // boundary only when there were no bytes before it).
    for (; i < head; ++i) out[i] = in[i] ^ keystream_byte(keystream, i);
    const std::size_t words = (n - head) / 8;
    const unsigned shift = static_cast<unsigned>(8 * head);
    const auto* in_words =
        static_cast<const unsigned char*>(__builtin_assume_aligned(in + head, 8));
    auto* out_words = static_cast<unsigned char*>(__builtin_assume_aligned(out + head, 8));
    for (std::size_t w = 0; w < words; ++w) {
      const std::uint64_t k =
          shift == 0 ? keystream[w] : (keystream[w] >> shift) | (keystream[w + 1] << (64 - shift));
      std::uint64_t data;
      __builtin_memcpy(&data, in_words + 8 * w, 8);  // aligned: one load
      data ^= k;
      __builtin_memcpy(out_words + 8 * w, &data, 8);
    }
    i = head + 8 * words;
  }
  for (; i < n; ++i) out[i] = in[i] ^ keystream_byte(keystream, i);
}

// The bulk of a record: whole blocks XORed into the data straight from the
// block function's registers, eight bytes at a time, where input and output
// share their alignment (n >= 72). The data's 8-byte boundaries sit u bytes
// into the keystream (u = the bytes before the output's first boundary, the
// same for every block: TLS records start 13 bytes into Mbed TLS's
// buffers), so each data word is two keystream words funnel-shifted, and
// the word across a block's end takes its high bytes from the next block.
// xor_keystream() works one block at a time and pays its u bytes at the
// front and 8 - u at the back of every block byte by byte, ~90 instructions
// a block more, and stores and reloads the keystream besides. Returns the
// bytes done; the last block is left in ctx->keystream, keystream_used at
// its first unused byte (8 - u of them are left when u != 0).
std::size_t crypt_words(mbedtls_chacha20_context* ctx, const unsigned char* in, unsigned char* out,
                        std::size_t n) {
  const unsigned u = static_cast<unsigned>((0 - reinterpret_cast<std::uintptr_t>(out)) & 7);
  const unsigned shift = 8 * u;
  // Whole blocks whose words fit: with u != 0 the last block's final word
  // would need the block after it, so it is left to the caller.
  const std::size_t blocks = u == 0 ? n / kBlockBytes : (n + 8 - u) / kBlockBytes;
  const auto* in_words = static_cast<const unsigned char*>(__builtin_assume_aligned(in + u, 8));
  auto* out_words = static_cast<unsigned char*>(__builtin_assume_aligned(out + u, 8));
  std::size_t words = 0;
  const auto put = [&](std::uint64_t k) {
    std::uint64_t data;
    __builtin_memcpy(&data, in_words + 8 * words, 8);  // aligned: one load
    data ^= k;
    __builtin_memcpy(out_words + 8 * words, &data, 8);
    ++words;
  };
  std::uint64_t k[8];
  std::uint64_t carry = 0;  // the previous block's last word
  for (std::size_t b = 0; b < blocks; ++b) {
    block(ctx->state, k);
    ++ctx->state[kCounterWord];  // wraps at 2^32 as RFC 8439's 32-bit counter does
    if (u == 0) {
      for (int q = 0; q < 8; ++q) put(k[q]);
      continue;
    }
    if (b == 0) {
      const std::uint64_t first = k[0];
      for (unsigned i = 0; i < u; ++i)
        out[i] = in[i] ^ static_cast<unsigned char>(first >> (8 * i));
    } else {
      put((carry >> shift) | (k[0] << (64 - shift)));
    }
    for (int q = 0; q < 7; ++q) put((k[q] >> shift) | (k[q + 1] << (64 - shift)));
    carry = k[7];
  }
  for (int q = 0; q < 8; ++q) ctx->keystream[q] = k[q];
  ctx->keystream_used = u == 0 ? kBlockBytes : 56 + u;
  return u + 8 * words;
}

}  // namespace
}  // namespace starling::net::tls::chachapoly

using namespace starling::net::tls::chachapoly;  // NOLINT: the C API below uses them

void mbedtls_chacha20_init(mbedtls_chacha20_context* ctx) {
  mbedtls_platform_zeroize(ctx, sizeof(*ctx));
  ctx->keystream_used = kBlockBytes;
}

void mbedtls_chacha20_free(mbedtls_chacha20_context* ctx) {
  if (ctx != nullptr) mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

int mbedtls_chacha20_setkey(mbedtls_chacha20_context* ctx, const unsigned char key[32]) {
  // "expand 32-byte k"
  ctx->state[0] = 0x61707865;
  ctx->state[1] = 0x3320646e;
  ctx->state[2] = 0x79622d32;
  ctx->state[3] = 0x6b206574;
  for (int i = 0; i < 8; ++i) ctx->state[4 + i] = load32_le(key + 4 * i);
  return 0;
}

int mbedtls_chacha20_starts(mbedtls_chacha20_context* ctx, const unsigned char nonce[12],
                            std::uint32_t counter) {
  ctx->state[kCounterWord] = counter;
  for (int i = 0; i < 3; ++i) ctx->state[13 + i] = load32_le(nonce + 4 * i);
  // The last block's keystream is marked used, not zeroed as the portable
  // code zeroes it: the key beside it in the context says more, and
  // mbedtls_chacha20_free() zeroes both. ChaCha20-Poly1305 starts twice a
  // record (the Poly1305 key's block, then the data's): ~200 instructions
  // a keep-alive request.
  ctx->keystream_used = kBlockBytes;
  return 0;
}

int mbedtls_chacha20_update(mbedtls_chacha20_context* ctx, std::size_t size,
                            const unsigned char* input, unsigned char* output) {
  std::size_t done = 0;
  // The rest of the block in ctx->keystream (the last update's, or
  // crypt_words()'s last), byte by byte.
  const auto use_rest_of_block = [&] {
    for (; done < size && ctx->keystream_used < kBlockBytes; ++done) {
      output[done] = input[done] ^ keystream_byte(ctx->keystream, ctx->keystream_used++);
    }
  };
  use_rest_of_block();
  if (size - done >= kBlockBytes + 8 && ((reinterpret_cast<std::uintptr_t>(input + done) ^
                                          reinterpret_cast<std::uintptr_t>(output + done)) &
                                         7) == 0) {
    done += crypt_words(ctx, input + done, output + done, size - done);
    use_rest_of_block();
  }
  while (done < size) {
    block(ctx->state, ctx->keystream);
    ++ctx->state[kCounterWord];  // wraps at 2^32 as RFC 8439's 32-bit counter does
    const std::size_t n = size - done < kBlockBytes ? size - done : kBlockBytes;
    xor_keystream(ctx->keystream, input + done, output + done, n);
    ctx->keystream_used = n;
    done += n;
  }
  return 0;
}

int mbedtls_chacha20_crypt(const unsigned char key[32], const unsigned char nonce[12],
                           std::uint32_t counter, std::size_t size, const unsigned char* input,
                           unsigned char* output) {
  mbedtls_chacha20_context ctx;
  mbedtls_chacha20_init(&ctx);
  mbedtls_chacha20_setkey(&ctx, key);
  mbedtls_chacha20_starts(&ctx, nonce, counter);
  mbedtls_chacha20_update(&ctx, size, input, output);
  mbedtls_chacha20_free(&ctx);
  return 0;
}
