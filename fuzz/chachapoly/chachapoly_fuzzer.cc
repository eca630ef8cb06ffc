// Fuzzes Starling's ChaCha20, Poly1305 and ChaCha20-Poly1305
// (net/tls/chachapoly, Mbed TLS's ALT hooks) against Mbed TLS's own
// portable code: the input is a key, a nonce, a block counter, where the
// data sits (the input's and output's offsets from an 8-byte boundary, or
// in place as TLS records are), the sizes of the pieces it is fed in, and
// the data. The keystream and the tag must be the portable code's, byte for
// byte, whatever the alignment and however the stream is cut; the AEAD's
// ciphertext and tag those of RFC 8439's construction from the portable
// code (the first piece's size mod 48 bytes of the data taken as the
// additional data), and it must open its own output.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/harness.h"
#include "mbedtls/chacha20.h"
#include "mbedtls/chachapoly.h"
#include "mbedtls/poly1305.h"
#include "net/tls/chachapoly/portable_reference.h"

namespace {

using starling::fuzz::Input;

void check(bool condition, const char* what) {
  starling::fuzz::check(condition, "chachapoly", what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  unsigned char key[32];
  unsigned char nonce[12];
  for (auto& b : key) b = in.u8();
  for (auto& b : nonce) b = in.u8();
  const std::uint32_t counter = in.u32();
  const std::uint8_t placement = in.u8();
  const unsigned in_offset = placement & 7;
  const bool in_place = (placement & 0x80) != 0;
  const unsigned out_offset = (placement >> 3) & 7;
  const std::size_t first_piece = 1 + in.u8();
  const std::size_t consumed = 32 + 12 + 4 + 1 + 1;
  const std::size_t length = size > consumed ? size - consumed : 0;
  const std::uint8_t* message = data + (size - length);

  // Buffers sized exactly, so ASan sees any byte read or written past the
  // data.
  std::vector<unsigned char> expected(length);
  starling_portable_chacha20_crypt(key, nonce, counter, length, message, expected.data());
  std::vector<unsigned char> in_buffer(in_offset + length);
  std::vector<unsigned char> out_buffer(out_offset + length);
  unsigned char* src = in_buffer.data() + in_offset;
  unsigned char* dst = in_place ? src : out_buffer.data() + out_offset;
  std::copy(message, message + length, src);
  mbedtls_chacha20_context ctx;
  mbedtls_chacha20_init(&ctx);
  mbedtls_chacha20_setkey(&ctx, key);
  mbedtls_chacha20_starts(&ctx, nonce, counter);
  // Pieces from the input's first size on, each the next of a fixed
  // sequence below 131 bytes, so cuts fall inside and across blocks.
  std::size_t piece = first_piece;
  for (std::size_t done = 0; done < length; piece = piece * 3 % 131 + 1) {
    const std::size_t take = std::min(piece, length - done);
    mbedtls_chacha20_update(&ctx, take, src + done, dst + done);
    done += take;
  }
  mbedtls_chacha20_free(&ctx);
  check(std::equal(dst, dst + length, expected.begin()),
        "ChaCha20 keystream differs from the portable code's");

  unsigned char expected_tag[16];
  starling_portable_poly1305_mac(key, message, length, expected_tag);
  std::copy(message, message + length, src);  // the message again, at the same offset
  mbedtls_poly1305_context mac;
  mbedtls_poly1305_init(&mac);
  mbedtls_poly1305_starts(&mac, key);
  piece = first_piece;
  for (std::size_t done = 0; done < length; piece = piece * 5 % 97 + 1) {
    const std::size_t take = std::min(piece, length - done);
    mbedtls_poly1305_update(&mac, src + done, take);
    done += take;
  }
  unsigned char tag[16];
  mbedtls_poly1305_finish(&mac, tag);
  mbedtls_poly1305_free(&mac);
  check(std::equal(tag, tag + 16, expected_tag), "Poly1305 tag differs from the portable code's");

  // The AEAD, one call each way, at the same placement.
  const std::size_t aad_len = std::min(length, first_piece % 48);
  const std::size_t sealed_len = length - aad_len;
  std::vector<unsigned char> aad(message, message + aad_len);
  std::vector<unsigned char> expected_sealed(sealed_len);
  starling::net::tls::chachapoly::testing::portable_seal(key, nonce, aad.data(), aad_len,
                                                         message + aad_len, sealed_len,
                                                         expected_sealed.data(), expected_tag);
  std::copy(message + aad_len, message + length, src);
  mbedtls_chachapoly_context aead;
  mbedtls_chachapoly_init(&aead);
  mbedtls_chachapoly_setkey(&aead, key);
  check(mbedtls_chachapoly_encrypt_and_tag(&aead, sealed_len, nonce, aad.data(), aad_len, src, dst,
                                           tag) == 0,
        "ChaCha20-Poly1305 refused to seal");
  check(std::equal(dst, dst + sealed_len, expected_sealed.begin()),
        "ChaCha20-Poly1305 ciphertext differs from RFC 8439's construction");
  check(std::equal(tag, tag + 16, expected_tag),
        "ChaCha20-Poly1305 tag differs from RFC 8439's construction");
  check(mbedtls_chachapoly_auth_decrypt(&aead, sealed_len, nonce, aad.data(), aad_len, tag, dst,
                                        dst) == 0,
        "ChaCha20-Poly1305 did not open its own output");
  check(std::equal(dst, dst + sealed_len, message + aad_len),
        "ChaCha20-Poly1305 opened to other bytes");
  mbedtls_chachapoly_free(&aead);
  return 0;
}
