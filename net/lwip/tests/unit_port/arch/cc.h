/*
 * arch/cc.h for lwIP's own unit tests and fuzz harness on the host (glibc).
 * The tarball has no port of its own (upstream takes it from lwip-contrib's
 * ports/unix); this is the part of that port the tests need. Not Starling's
 * port: see net/lwip/arch/cc.h for that.
 */
#ifndef STARLING_NET_LWIP_TESTS_ARCH_CC_H_
#define STARLING_NET_LWIP_TESTS_ARCH_CC_H_

/* The socket tests include lwip/sockets.h next to glibc's headers: take
 * struct timeval and errno from the system instead of lwIP's copies. */
#define LWIP_TIMEVAL_PRIVATE 0
#include <sys/time.h>
#define LWIP_ERRNO_INCLUDE <errno.h>

#include <stdlib.h>
#define LWIP_RAND() ((u32_t)rand())

/* lwIP's default LWIP_PLATFORM_ASSERT (printf + fflush + abort) is what the
 * tests expect: an assert kills the forked test, check reports it. */

#endif /* STARLING_NET_LWIP_TESTS_ARCH_CC_H_ */
