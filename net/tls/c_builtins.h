#ifndef STARLING_NET_TLS_C_BUILTINS_H_
#define STARLING_NET_TLS_C_BUILTINS_H_

/* -ffreestanding (toolchain/flags.bzl) makes memcpy and memset ordinary
 * functions to clang, so every memcpy(&word, p, 4) Mbed TLS uses for a load
 * or store that may be unaligned (library/alignment.h, behind
 * MBEDTLS_GET_UINT32_LE and friends: each ChaCha20 block, Poly1305 block
 * and SHA-256 round) was a call to the kernel's memcpy, ~40 instructions
 * for 4 bytes, and so was each of HACL*'s 40-byte field-element copies in
 * X25519 (437k instructions a handshake: //bench/cost:tls_profile). The
 * builtins inline a constant size and call the same functions for any
 * other (docs/tls.md, "What a record costs"). C only: Mbed TLS through its
 * configuration (mbedtls_config.h), Everest's sources, which do not include
 * it, by -include (BUILD.bazel); C++ code keeps std::memcpy. <string.h>
 * first, so its declarations are not rewritten. */
#if !defined(__cplusplus)
#include <string.h>
#define memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define memset(d, c, n) __builtin_memset((d), (c), (n))
#endif

#endif /* STARLING_NET_TLS_C_BUILTINS_H_ */
