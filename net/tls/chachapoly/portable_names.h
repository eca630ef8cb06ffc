/* Forced into Mbed TLS's own library/chacha20.c and library/poly1305.c for
 * :portable_reference (-include, BUILD.bazel): their functions renamed, so
 * the portable code links beside Starling's in one test binary. C. */
#ifndef STARLING_NET_TLS_CHACHAPOLY_PORTABLE_NAMES_H_
#define STARLING_NET_TLS_CHACHAPOLY_PORTABLE_NAMES_H_

#define mbedtls_chacha20_init starling_portable_chacha20_init
#define mbedtls_chacha20_free starling_portable_chacha20_free
#define mbedtls_chacha20_setkey starling_portable_chacha20_setkey
#define mbedtls_chacha20_starts starling_portable_chacha20_starts
#define mbedtls_chacha20_update starling_portable_chacha20_update
#define mbedtls_chacha20_crypt starling_portable_chacha20_crypt
#define mbedtls_poly1305_init starling_portable_poly1305_init
#define mbedtls_poly1305_free starling_portable_poly1305_free
#define mbedtls_poly1305_starts starling_portable_poly1305_starts
#define mbedtls_poly1305_update starling_portable_poly1305_update
#define mbedtls_poly1305_finish starling_portable_poly1305_finish
#define mbedtls_poly1305_mac starling_portable_poly1305_mac

#endif /* STARLING_NET_TLS_CHACHAPOLY_PORTABLE_NAMES_H_ */
