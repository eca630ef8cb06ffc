/*
 * lwIP's hook file (LWIP_HOOK_FILENAME in lwipopts.h), included by lwIP's
 * sources after their own headers: declarations of the hook functions
 * lwipopts.h names. Defined in net/port/random.cc.
 */
#ifndef STARLING_NET_LWIP_ARCH_HOOKS_H_
#define STARLING_NET_LWIP_ARCH_HOOKS_H_

#include "lwip/ip_addr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LWIP_HOOK_TCP_ISN: RFC 6528 initial sequence numbers from a keyed hash of
 * the connection's addresses and ports (net/port/random.h). */
u32_t starling_tcp_isn(const ip_addr_t* local_ip, u16_t local_port, const ip_addr_t* remote_ip,
                       u16_t remote_port);

#ifdef __cplusplus
}
#endif

#endif /* STARLING_NET_LWIP_ARCH_HOOKS_H_ */
