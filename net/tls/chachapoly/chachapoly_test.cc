// Starling's ChaCha20, Poly1305 and ChaCha20-Poly1305 (the ALT hooks):
// RFC 8439's vectors, Mbed TLS's own self-tests run over them, and the same
// results as Mbed TLS's portable code at every alignment, length and split
// of the input (the AEAD against RFC 8439 section 2.8 built from the
// portable ChaCha20 and Poly1305).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "mbedtls/chacha20.h"
#include "mbedtls/chachapoly.h"
#include "mbedtls/poly1305.h"
#include "net/tls/chachapoly/portable_reference.h"

namespace {

std::vector<unsigned char> from_hex(std::string_view hex) {
  std::vector<unsigned char> out;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<unsigned char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

// Fixed pseudo-random bytes (a seeded std::mt19937, as the project's other
// tests use), so every run checks the same inputs.
void fill(std::mt19937& random, std::span<unsigned char> out) {
  for (auto& b : out) b = static_cast<unsigned char>(random());
}

constexpr std::string_view kSunscreen =
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
    "future, sunscreen would be it.";

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

TEST(ChaCha20, Rfc8439Section2_4_2) {
  std::array<unsigned char, 32> key;
  for (int i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(i);
  const auto nonce = from_hex("000000000000004a00000000");
  const auto expected = from_hex(
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dab"
      "cd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806"
      "818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d");
  std::vector<unsigned char> out(kSunscreen.size());
  ASSERT_EQ(mbedtls_chacha20_crypt(key.data(), nonce.data(), 1, kSunscreen.size(),
                                   bytes_of(kSunscreen), out.data()),
            0);
  EXPECT_EQ(out, expected);
}

TEST(Poly1305, Rfc8439Section2_5_2) {
  const auto key = from_hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
  constexpr std::string_view kMessage = "Cryptographic Forum Research Group";
  std::array<unsigned char, 16> tag;
  ASSERT_EQ(mbedtls_poly1305_mac(key.data(), bytes_of(kMessage), kMessage.size(), tag.data()), 0);
  EXPECT_EQ(std::vector<unsigned char>(tag.begin(), tag.end()),
            from_hex("a8061dc1305136c6c22b8baf0c0127a9"));
}

// RFC 8439 appendix A.3, vectors 5 to 11: accumulators that land on or past
// p = 2^130 - 5, where the final reduction and the carries are tested.
TEST(Poly1305, Rfc8439EdgeVectors) {
  struct Vector {
    std::string r;
    std::string s;
    std::string message;
    std::string tag;
  };
  const std::string zero(32, '0');
  const std::string ones(32, 'f');
  const std::string r1 = "01" + std::string(30, '0');
  const std::string r2 = "02" + std::string(30, '0');
  const std::string r10 = "01000000000000000400000000000000";
  const std::string m10 =
      "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000000000000000000000000000000"
      "0000001000000000000000000000000000000";
  const std::string m7 = ones + "f0" + std::string(30, 'f') + "11" + std::string(30, '0');
  std::string m8_full = ones + "fb";
  for (int i = 0; i < 15; ++i) m8_full += "fe";
  for (int i = 0; i < 16; ++i) m8_full += "01";
  const std::string m9 = "fd" + std::string(30, 'f');
  const std::string m6 = "02" + std::string(30, '0');
  const Vector vectors[] = {
      {r2, zero, ones, "03000000000000000000000000000000"},
      {r2, ones, m6, "03000000000000000000000000000000"},
      {r1, zero, m7, "05000000000000000000000000000000"},
      {r1, zero, m8_full, "00000000000000000000000000000000"},
      {r2, zero, m9, "faffffffffffffffffffffffffffffff"},
      {r10, zero, m10, "14000000000000005500000000000000"},
      {r10, zero, m10.substr(0, 96), "13000000000000000000000000000000"},
  };
  for (const auto& v : vectors) {
    auto key = from_hex(v.r);
    const auto s = from_hex(v.s);
    key.insert(key.end(), s.begin(), s.end());
    const auto message = from_hex(v.message);
    std::array<unsigned char, 16> tag;
    ASSERT_EQ(mbedtls_poly1305_mac(key.data(), message.data(), message.size(), tag.data()), 0);
    EXPECT_EQ(std::vector<unsigned char>(tag.begin(), tag.end()), from_hex(v.tag)) << v.message;
  }
}

TEST(ChaChaPoly, Rfc8439Section2_8_2) {
  const auto key = from_hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
  const auto nonce = from_hex("070000004041424344454647");
  const auto aad = from_hex("50515253c0c1c2c3c4c5c6c7");
  mbedtls_chachapoly_context ctx;
  mbedtls_chachapoly_init(&ctx);
  ASSERT_EQ(mbedtls_chachapoly_setkey(&ctx, key.data()), 0);
  std::vector<unsigned char> sealed(kSunscreen.size());
  std::array<unsigned char, 16> tag;
  ASSERT_EQ(mbedtls_chachapoly_encrypt_and_tag(&ctx, kSunscreen.size(), nonce.data(), aad.data(),
                                               aad.size(), bytes_of(kSunscreen), sealed.data(),
                                               tag.data()),
            0);
  EXPECT_EQ(std::vector<unsigned char>(tag.begin(), tag.end()),
            from_hex("1ae10b594f09e26a7e902ecbd0600691"));
  std::vector<unsigned char> opened(sealed.size());
  EXPECT_EQ(mbedtls_chachapoly_auth_decrypt(&ctx, sealed.size(), nonce.data(), aad.data(),
                                            aad.size(), tag.data(), sealed.data(), opened.data()),
            0);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(opened.data()), opened.size()),
            kSunscreen);
  sealed[57] ^= 0x10;  // one flipped bit: refused
  EXPECT_EQ(mbedtls_chachapoly_auth_decrypt(&ctx, sealed.size(), nonce.data(), aad.data(),
                                            aad.size(), tag.data(), sealed.data(), opened.data()),
            MBEDTLS_ERR_CHACHAPOLY_AUTH_FAILED);
  mbedtls_chachapoly_free(&ctx);
}

// Mbed TLS's own self-tests (its copies of RFC 8439's vectors), run over
// Starling's functions.
TEST(LibrarySelfTests, Pass) {
  EXPECT_EQ(mbedtls_chacha20_self_test(0), 0);
  EXPECT_EQ(mbedtls_poly1305_self_test(0), 0);
  EXPECT_EQ(mbedtls_chachapoly_self_test(0), 0);
}

// Every length up to five blocks and a bit, every alignment of the input
// and output (apart, and in place as TLS does), a counter about to wrap:
// the same bytes as the portable code.
TEST(ChaCha20, MatchesThePortableCodeAtEveryAlignment) {
  std::mt19937 random(1);
  std::array<unsigned char, 32> key;
  std::array<unsigned char, 12> nonce;
  std::vector<unsigned char> input(400);
  std::vector<unsigned char> in_buffer(420);
  std::vector<unsigned char> out_buffer(420);
  std::vector<unsigned char> expected(400);
  for (std::size_t length = 0; length <= 330; length += (length < 140 ? 1 : 13)) {
    for (unsigned in_offset = 0; in_offset < 8; ++in_offset) {
      for (unsigned out_offset = 0; out_offset < 9; ++out_offset) {  // 8: in place
        fill(random, key);
        fill(random, nonce);
        fill(random, input);
        const std::uint32_t counter =
            (length % 3 == 0) ? 0xffffffffu - 2 : static_cast<std::uint32_t>(random());
        starling_portable_chacha20_crypt(key.data(), nonce.data(), counter, length, input.data(),
                                         expected.data());
        unsigned char* in = in_buffer.data() + in_offset;
        unsigned char* out = out_offset == 8 ? in : out_buffer.data() + out_offset;
        std::copy(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(length), in);
        ASSERT_EQ(mbedtls_chacha20_crypt(key.data(), nonce.data(), counter, length, in, out), 0);
        ASSERT_TRUE(std::equal(out, out + length, expected.begin()))
            << "length " << length << ", input at +" << in_offset << ", output "
            << (out_offset == 8 ? std::string("in place") : "at +" + std::to_string(out_offset));
      }
    }
  }
}

// The same stream cut into pieces of every awkward size (the rest of a
// block carried from one update to the next).
TEST(ChaCha20, PiecesMatchOneCall) {
  std::mt19937 random(2);
  std::array<unsigned char, 32> key;
  std::array<unsigned char, 12> nonce;
  std::vector<unsigned char> input(1000);
  std::vector<unsigned char> expected(1000);
  std::vector<unsigned char> output(1000);
  for (std::size_t piece : {1u, 3u, 7u, 8u, 13u, 63u, 64u, 65u, 127u, 200u}) {
    fill(random, key);
    fill(random, nonce);
    fill(random, input);
    starling_portable_chacha20_crypt(key.data(), nonce.data(), 7, input.size(), input.data(),
                                     expected.data());
    mbedtls_chacha20_context ctx;
    mbedtls_chacha20_init(&ctx);
    ASSERT_EQ(mbedtls_chacha20_setkey(&ctx, key.data()), 0);
    ASSERT_EQ(mbedtls_chacha20_starts(&ctx, nonce.data(), 7), 0);
    // Pieces growing from `piece` by one each time, so the cuts fall at
    // every offset into a block.
    std::size_t done = 0;
    for (std::size_t n = piece; done < input.size(); ++n) {
      const std::size_t take = std::min(n, input.size() - done);
      ASSERT_EQ(mbedtls_chacha20_update(&ctx, take, input.data() + done, output.data() + done), 0);
      done += take;
    }
    mbedtls_chacha20_free(&ctx);
    EXPECT_EQ(output, expected) << "pieces from " << piece;
  }
}

TEST(Poly1305, MatchesThePortableCodeAtEveryAlignmentAndSplit) {
  std::mt19937 random(3);
  std::array<unsigned char, 32> key;
  std::vector<unsigned char> buffer(600);
  for (std::size_t length = 0; length <= 520; length += (length < 100 ? 1 : 17)) {
    for (unsigned offset = 0; offset < 8; ++offset) {
      fill(random, key);
      // Every fourth key has r and s all ones where the clamp allows, and
      // every fourth message all 0xff: the largest accumulators.
      if (length % 4 == 1) std::fill(key.begin(), key.end(), 0xff);
      unsigned char* message = buffer.data() + offset;
      for (std::size_t i = 0; i < length; ++i)
        message[i] = length % 4 == 2 ? 0xff : static_cast<std::uint32_t>(random());
      std::array<unsigned char, 16> expected;
      starling_portable_poly1305_mac(key.data(), message, length, expected.data());
      std::array<unsigned char, 16> tag;
      ASSERT_EQ(mbedtls_poly1305_mac(key.data(), message, length, tag.data()), 0);
      ASSERT_EQ(tag, expected) << "length " << length << " at +" << offset;
      // In pieces, as chachapoly.c feeds it (AAD, padding, ciphertext,
      // lengths).
      const std::size_t piece = 1 + (length + offset) % 23;
      mbedtls_poly1305_context ctx;
      mbedtls_poly1305_init(&ctx);
      ASSERT_EQ(mbedtls_poly1305_starts(&ctx, key.data()), 0);
      for (std::size_t done = 0; done < length; done += piece) {
        ASSERT_EQ(mbedtls_poly1305_update(&ctx, message + done, std::min(piece, length - done)), 0);
      }
      ASSERT_EQ(mbedtls_poly1305_finish(&ctx, tag.data()), 0);
      mbedtls_poly1305_free(&ctx);
      ASSERT_EQ(tag, expected) << "length " << length << " at +" << offset << " in pieces of "
                               << piece;
    }
  }
}

// The one-call AEAD (TLS's records) and the streaming calls in pieces
// (PSA's multi-part AEAD) against the portable composition: additional
// data of 0 to 40 bytes, data of 0 to 300, the output at every alignment,
// apart and in place; decryption opens it, and a flipped tag bit is
// refused with the output zeroed.
TEST(ChaChaPoly, MatchesThePortableCompositionAtEveryLengthAndAlignment) {
  std::mt19937 random(4);
  std::array<unsigned char, 32> key;
  std::array<unsigned char, 12> nonce;
  std::vector<unsigned char> buffer(340);
  for (std::size_t length = 0; length <= 300; length += (length < 70 ? 1 : 23)) {
    for (unsigned offset = 0; offset < 8; ++offset) {
      fill(random, key);
      fill(random, nonce);
      std::vector<unsigned char> aad((length * 7 + offset) % 41);
      fill(random, aad);
      std::vector<unsigned char> plain(length);
      fill(random, plain);
      std::vector<unsigned char> expected(length);
      std::array<unsigned char, 16> expected_tag;
      starling::net::tls::chachapoly::testing::portable_seal(key.data(), nonce.data(), aad.data(),
                                                             aad.size(), plain.data(), length,
                                                             expected.data(), expected_tag.data());

      mbedtls_chachapoly_context ctx;
      mbedtls_chachapoly_init(&ctx);
      ASSERT_EQ(mbedtls_chachapoly_setkey(&ctx, key.data()), 0);
      const bool in_place = offset % 2 == 1;
      unsigned char* out = buffer.data() + offset;
      std::copy(plain.begin(), plain.end(), out);
      const unsigned char* in = in_place ? out : plain.data();
      std::array<unsigned char, 16> tag;
      ASSERT_EQ(mbedtls_chachapoly_encrypt_and_tag(&ctx, length, nonce.data(), aad.data(),
                                                   aad.size(), in, out, tag.data()),
                0);
      ASSERT_EQ(std::vector<unsigned char>(out, out + length), expected)
          << "length " << length << " aad " << aad.size() << " at +" << offset;
      ASSERT_EQ(tag, expected_tag) << "length " << length << " aad " << aad.size();

      // The streaming calls, the data in pieces.
      std::vector<unsigned char> streamed(length);
      ASSERT_EQ(mbedtls_chachapoly_starts(&ctx, nonce.data(), MBEDTLS_CHACHAPOLY_ENCRYPT), 0);
      const std::size_t cut = aad.size() / 3;
      ASSERT_EQ(mbedtls_chachapoly_update_aad(&ctx, aad.data(), cut), 0);
      ASSERT_EQ(mbedtls_chachapoly_update_aad(&ctx, aad.data() + cut, aad.size() - cut), 0);
      const std::size_t piece = 1 + (length + offset) % 29;
      for (std::size_t done = 0; done < length; done += piece) {
        const std::size_t n = std::min(piece, length - done);
        ASSERT_EQ(mbedtls_chachapoly_update(&ctx, n, plain.data() + done, streamed.data() + done),
                  0);
      }
      std::array<unsigned char, 16> streamed_tag;
      ASSERT_EQ(mbedtls_chachapoly_finish(&ctx, streamed_tag.data()), 0);
      ASSERT_EQ(streamed, expected) << "streamed, length " << length;
      ASSERT_EQ(streamed_tag, expected_tag) << "streamed, length " << length;
      EXPECT_EQ(mbedtls_chachapoly_update_aad(&ctx, aad.data(), aad.size()),
                MBEDTLS_ERR_CHACHAPOLY_BAD_STATE);

      // Opened in place, and refused with a flipped tag bit.
      ASSERT_EQ(mbedtls_chachapoly_auth_decrypt(&ctx, length, nonce.data(), aad.data(), aad.size(),
                                                tag.data(), out, out),
                0);
      ASSERT_EQ(std::vector<unsigned char>(out, out + length), plain);
      std::copy(expected.begin(), expected.end(), out);
      tag[length % 16] ^= 0x04;
      ASSERT_EQ(mbedtls_chachapoly_auth_decrypt(&ctx, length, nonce.data(), aad.data(), aad.size(),
                                                tag.data(), out, out),
                MBEDTLS_ERR_CHACHAPOLY_AUTH_FAILED);
      ASSERT_TRUE(std::all_of(out, out + length, [](unsigned char b) { return b == 0; }));
      mbedtls_chachapoly_free(&ctx);
    }
  }
}

}  // namespace
