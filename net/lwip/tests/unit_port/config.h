/* lwIP's unit tests include <config.h> (upstream: lwip-contrib's
 * ports/unix/check/config.h, which only holds commented-out switches). */
#ifndef STARLING_NET_LWIP_TESTS_CONFIG_H_
#define STARLING_NET_LWIP_TESTS_CONFIG_H_
#endif
