// Mbed TLS's own portable ChaCha20 and Poly1305 (library/chacha20.c and
// poly1305.c, built without the ALT hooks and renamed by portable_names.h),
// and RFC 8439's AEAD built from them, for tests and the fuzzer to compare
// Starling's implementation against.
#ifndef STARLING_NET_TLS_CHACHAPOLY_PORTABLE_REFERENCE_H_
#define STARLING_NET_TLS_CHACHAPOLY_PORTABLE_REFERENCE_H_

#include <cstddef>
#include <cstdint>

extern "C" {
int starling_portable_chacha20_crypt(const unsigned char key[32], const unsigned char nonce[12],
                                     std::uint32_t counter, std::size_t size,
                                     const unsigned char* input, unsigned char* output);
int starling_portable_poly1305_mac(const unsigned char key[32], const unsigned char* input,
                                   std::size_t ilen, unsigned char mac[16]);
}

namespace starling::net::tls::chachapoly::testing {

// ChaCha20-Poly1305 (RFC 8439 section 2.8) from the two above: the
// Poly1305 key from keystream block 0, `length` bytes of `input` encrypted
// from block 1 into `output`, the tag over the additional data and the
// ciphertext, each padded to 16 bytes, then their lengths.
void portable_seal(const unsigned char key[32], const unsigned char nonce[12],
                   const unsigned char* aad, std::size_t aad_len, const unsigned char* input,
                   std::size_t length, unsigned char* output, unsigned char tag[16]);

}  // namespace starling::net::tls::chachapoly::testing

#endif  // STARLING_NET_TLS_CHACHAPOLY_PORTABLE_REFERENCE_H_
