/* Forced into a second compile of Mbed TLS's library/chachapoly.c for
 * :library_self_tests (-include, BUILD.bazel), which wants its self-test:
 * its AEAD functions renamed so they link beside the library's own copy.
 * They call the same mbedtls_chacha20_* and mbedtls_poly1305_* functions,
 * Starling's, as the library's copy does. C. */
#ifndef STARLING_NET_TLS_CHACHAPOLY_SELF_TEST_NAMES_H_
#define STARLING_NET_TLS_CHACHAPOLY_SELF_TEST_NAMES_H_

#define mbedtls_chachapoly_init starling_self_test_chachapoly_init
#define mbedtls_chachapoly_free starling_self_test_chachapoly_free
#define mbedtls_chachapoly_setkey starling_self_test_chachapoly_setkey
#define mbedtls_chachapoly_starts starling_self_test_chachapoly_starts
#define mbedtls_chachapoly_update_aad starling_self_test_chachapoly_update_aad
#define mbedtls_chachapoly_update starling_self_test_chachapoly_update
#define mbedtls_chachapoly_finish starling_self_test_chachapoly_finish
#define mbedtls_chachapoly_encrypt_and_tag starling_self_test_chachapoly_encrypt_and_tag
#define mbedtls_chachapoly_auth_decrypt starling_self_test_chachapoly_auth_decrypt

#endif /* STARLING_NET_TLS_CHACHAPOLY_SELF_TEST_NAMES_H_ */
