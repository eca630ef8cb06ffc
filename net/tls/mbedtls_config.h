/* Starling's Mbed TLS 3.6 configuration: every option the library is built
 * with, and nothing else (Mbed TLS's own mbedtls_config.h is not read).
 * docs/tls.md says what each group is for. In short: a TLS 1.3 server (1.2
 * allowed) with forward-secret key exchange only (ECDHE over X25519 or
 * P-256, also P-384 for clients that insist), AES-GCM and
 * ChaCha20-Poly1305, ECDSA or RSA certificates, session tickets, no
 * renegotiation, no compression (gone from Mbed TLS 3), no file system, no
 * sockets, no libc time: the board's entropy, clock and memory come in
 * through net/tls/mbedtls_port.h. The client side is built too, for the
 * tests' in-memory handshakes; images drop it (--gc-sections).
 *
 * Included by every Mbed TLS source and header through
 * MBEDTLS_CONFIG_FILE (net/tls/BUILD.bazel). C, not C++: the library is C. */
#ifndef STARLING_NET_TLS_MBEDTLS_CONFIG_H_
#define STARLING_NET_TLS_MBEDTLS_CONFIG_H_

/* ---- Platform: what a freestanding board provides ------------------------ */

/* calloc/free through mbedtls_platform_set_calloc_free(): a bounded arena,
 * not the C library's heap (mbedtls_port.h). */
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
/* Time: session ticket lifetimes and TLS 1.3 ticket ages, from the board's
 * monotonic clock (mbedtls_port.cc: starling_mbedtls_time, mbedtls_ms_time;
 * no libc time()); no wall-clock date, so certificate validity periods are
 * not checked (docs/tls.md). */
#include <time.h>
#ifdef __cplusplus
extern "C" {
#endif
time_t starling_mbedtls_time(time_t* out);
#ifdef __cplusplus
}
#endif
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_PLATFORM_TIME_MACRO starling_mbedtls_time
#define MBEDTLS_PLATFORM_MS_TIME_ALT
/* Entropy from the board (kernel/hal/entropy.h) through
 * mbedtls_hardware_poll(); no /dev/urandom. */
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_ENTROPY_HARDWARE_ALT
#define MBEDTLS_ENTROPY_C
#define MBEDTLS_CTR_DRBG_C
#define MBEDTLS_HMAC_DRBG_C
/* The AES tables in .rodata, not built at run time into RAM. */
#define MBEDTLS_AES_ROM_TABLES

/* memcpy and memset as the compiler's builtins in C (c_builtins.h). */
#include "net/tls/c_builtins.h"

/* ---- Crypto primitives ---------------------------------------------------- */

#define MBEDTLS_CIPHER_C
#define MBEDTLS_MD_C
#define MBEDTLS_AES_C
#define MBEDTLS_GCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C
/* ChaCha20, Poly1305 and the AEAD over them from net/tls/chachapoly:
 * 64-bit words where the portable code works bytes and 32-bit limbs, a
 * record in whole Poly1305 blocks (docs/tls.md, "What a record costs"). Its tests build Mbed TLS's
 * own code beside it to compare with (STARLING_MBEDTLS_PORTABLE_CHACHAPOLY,
 * net/tls/chachapoly/BUILD.bazel). */
#if !defined(STARLING_MBEDTLS_PORTABLE_CHACHAPOLY)
#define MBEDTLS_CHACHA20_ALT
#define MBEDTLS_POLY1305_ALT
#define MBEDTLS_CHACHAPOLY_ALT
#endif
#define MBEDTLS_SHA224_C
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA384_C
#define MBEDTLS_SHA512_C
#define MBEDTLS_HKDF_C

#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_NIST_OPTIM
/* P-256's point doubling, mixed addition and normalization on 64-bit limbs
 * (net/tls/p256) instead of bignums: docs/tls.md, "What a handshake costs".
 * Other curves keep the generic code. */
#define MBEDTLS_ECP_INTERNAL_ALT
#define MBEDTLS_ECP_DOUBLE_JAC_ALT
#define MBEDTLS_ECP_ADD_MIXED_ALT
#define MBEDTLS_ECP_NORMALIZE_JAC_ALT
#define MBEDTLS_ECP_NORMALIZE_JAC_MANY_ALT
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_DP_SECP384R1_ENABLED
#define MBEDTLS_ECP_DP_CURVE25519_ENABLED
#define MBEDTLS_ECDH_C
/* X25519 agreement (and, by net/tls/patches/0003, the public key of an
 * X25519 key share) through Project Everest's HACL* code in Mbed TLS's
 * 3rdparty/, not the generic bignum Montgomery ladder: docs/tls.md, "What a
 * handshake costs". */
#define MBEDTLS_ECDH_VARIANT_EVEREST_ENABLED
/* ...except that an X25519 public key, k * 9, is a fixed-base comb
 * (net/tls/x25519, net/tls/patches/0006): about a third of the ladder. */
#define STARLING_X25519_PUBLIC_KEY_ALT
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ECDSA_DETERMINISTIC
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21 /* RSA-PSS: TLS 1.3's only RSA signature */
#define MBEDTLS_GENPRIME  /* RSA key generation: the tests' throwaway RSA keys */

/* PSA Crypto: TLS 1.3 in Mbed TLS 3.6 runs its key schedule and ECDHE
 * through it. No persistent keys (no storage). */
#define MBEDTLS_PSA_CRYPTO_C
/* Volatile key slots: a handshake holds a few at once (its ECDHE share,
 * the certificate's key while signing); sized for the connections
 * net/tls admits at once (docs/tls.md). */
#define MBEDTLS_PSA_KEY_SLOT_COUNT 32
/* PSA calls take the caller's buffers as they are. Without this, Mbed TLS
 * 3.6 copies every input and output of every PSA call into a fresh heap
 * buffer, a guard for buffers shared with an untrusted party (another
 * process, a secure world) that could change them mid-call. Here every
 * buffer belongs to the one address space's only caller, the TLS layer,
 * and nothing else runs while a PSA call does. The copies and their
 * allocations were 201k instructions of a resumed handshake (1.68 M ->
 * 1.48 M) and 174k of a full one (docs/tls.md); the key schedule's hashes
 * and HMACs went through them, records do not. PSA's AEAD then runs in
 * place when asked to, which the ciphers allow (net/tls/chachapoly's
 * tests check its in-place case). */
#define MBEDTLS_PSA_ASSUME_EXCLUSIVE_BUFFERS

/* ---- Keys, certificates --------------------------------------------------- */

#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C
#define MBEDTLS_OID_C
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_PEM_WRITE_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PK_WRITE_C
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
/* Certificate writing: the tests make throwaway certificates in memory. */
#define MBEDTLS_X509_CREATE_C
#define MBEDTLS_X509_CRT_WRITE_C

/* ---- TLS ------------------------------------------------------------------ */

#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_SRV_C
#define MBEDTLS_SSL_CLI_C
#define MBEDTLS_SSL_PROTO_TLS1_3
#define MBEDTLS_SSL_PROTO_TLS1_2
/* Forward secrecy only: (EC)DHE with a certificate (TLS 1.3's ephemeral
 * and PSK-with-ephemeral modes, the latter for resumption by ticket;
 * TLS 1.2's ECDHE-ECDSA and ECDHE-RSA). No static RSA key exchange, no
 * plain PSK. */
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL_ENABLED
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_EPHEMERAL_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED
/* Curl and browsers send a legacy session id and expect the compatibility
 * mode's dummy ChangeCipherSpec. */
#define MBEDTLS_SSL_TLS1_3_COMPATIBILITY_MODE
/* The current implementation of TLS 1.3 requires it (check_config.h). */
#define MBEDTLS_SSL_KEEP_PEER_CERTIFICATE
#define MBEDTLS_SSL_SESSION_TICKETS
#define MBEDTLS_SSL_TICKET_C
#define MBEDTLS_SSL_SERVER_NAME_INDICATION
#define MBEDTLS_SSL_ALPN
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_ENCRYPT_THEN_MAC
#define MBEDTLS_SSL_MAX_FRAGMENT_LENGTH
/* Renegotiation stays off (not defined): a peer cannot restart the
 * handshake on a live connection. */

/* Record buffers: a peer may send full 16 KiB records (TLS gives the
 * receiver no say without extensions few clients send), so input holds
 * one; output is ours to cut smaller: 4 KiB records, the buffer 4 KiB plus
 * the record's overhead. Per connection: docs/tls.md, docs/hostile-peers.md. */
#define MBEDTLS_SSL_IN_CONTENT_LEN 16384
#define MBEDTLS_SSL_OUT_CONTENT_LEN 4096

/* Ciphersuites offered and accepted, in the server's order of preference
 * (which decides, TLS 1.3 too: net/tls/patches/0001). TLS 1.3: all three of
 * RFC 8446's general-purpose suites; TLS 1.2: ECDHE with AEAD only.
 * ChaCha20-Poly1305 first: these cores have no AES or carry-less multiply
 * instructions, and a keep-alive HTTPS request cost 103,996 guest
 * instructions with it against 360,583 with AES-256-GCM (bench/http,
 * -icount). Both are 256-bit AEADs. */
#define MBEDTLS_SSL_CIPHERSUITES                                                                \
  MBEDTLS_TLS1_3_CHACHA20_POLY1305_SHA256, MBEDTLS_TLS1_3_AES_256_GCM_SHA384,                   \
      MBEDTLS_TLS1_3_AES_128_GCM_SHA256, MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, \
      MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,                                          \
      MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,                                          \
      MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,                                      \
      MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256

#endif /* STARLING_NET_TLS_MBEDTLS_CONFIG_H_ */
