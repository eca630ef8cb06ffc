/*
 * lwIP's compiler/platform port for Starling (lwIP includes it as "arch/cc.h"
 * from lwip/arch.h).
 *
 * The riscv64 kernel is freestanding: of the C library it has only the
 * headers picolibc provides (stdint.h, stddef.h, inttypes.h, limits.h) and
 * the string functions the kernel itself defines (memcpy, memset, memcmp,
 * memmove, strlen, memchr, strcmp). Nothing here may pull in stdio, stdlib or
 * ctype functions. The same header serves the host board (glibc), where the
 * hooks below are defined by platform/host.
 *
 * C and C++: lwIP's sources are C, the port's glue is C++.
 */
#ifndef STARLING_NET_LWIP_ARCH_CC_H_
#define STARLING_NET_LWIP_ARCH_CC_H_

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* ssize_t: lwip/arch.h typedefs it as int unless <limits.h> defines
 * SSIZE_MAX. picolibc's <limits.h> does not, while its <sys/types.h> (pulled
 * in by the C++ headers) declares ssize_t as long: two definitions. Take the C
 * library's type everywhere, lwIP's own sources included. */
#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif
#ifndef LWIP_NO_UNISTD_H
#define LWIP_NO_UNISTD_H 1
#endif

/* Both targets (riscv64, x86_64) are little endian. lwip/arch.h defines
 * LITTLE_ENDIAN (1234) before it includes this file. */
#ifndef BYTE_ORDER /* glibc's <sys/types.h> already says so on the host */
#define BYTE_ORDER LITTLE_ENDIAN
#endif

/* No <ctype.h> functions in the kernel: lwIP uses its own character macros. */
#define LWIP_NO_CTYPE_H 1

/* Byte swaps as single instructions (rev8 with Zbb, a short shift sequence
 * without) instead of lwIP's portable C versions. */
#define lwip_htons(x) ((u16_t)__builtin_bswap16((u16_t)(x)))
#define lwip_htonl(x) ((u32_t)__builtin_bswap32((u32_t)(x)))

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by the kernel (the panic path): prints the message with file and
 * line and stops. Never returns. */
__attribute__((noreturn)) void starling_lwip_assert(const char* message, const char* file,
                                                    int line);

/* Defined by the kernel (the console log): printf-style diagnostics. Only
 * called when LWIP_DEBUG is on. */
__attribute__((format(printf, 1, 2))) void starling_lwip_diag(const char* format, ...);

/* Defined by the kernel: random numbers for DHCP transaction ids, TCP initial
 * sequence numbers and local port selection. */
uint32_t starling_lwip_rand(void);

/* net/lwip/checksum.cc: the one's complement sum over `length` bytes, folded
 * to 16 bits, in memory order (what lwIP's lwip_standard_chksum returns). */
uint16_t starling_lwip_chksum(const void* data, int length);

#ifdef __cplusplus
}
#endif

/* LWIP_PLATFORM_DIAG's argument is a parenthesised printf argument list. */
#define LWIP_PLATFORM_DIAG(x) \
  do {                        \
    starling_lwip_diag x;     \
  } while (0)
#define LWIP_PLATFORM_ASSERT(x) starling_lwip_assert((x), __FILE__, __LINE__)
#define LWIP_RAND() ((u32_t)starling_lwip_rand())
#define LWIP_CHKSUM starling_lwip_chksum

#endif /* STARLING_NET_LWIP_ARCH_CC_H_ */
