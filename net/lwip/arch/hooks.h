/*
 * lwIP's hook file (LWIP_HOOK_FILENAME in lwipopts.h), included by lwIP's
 * sources after their own headers: declarations of the hook functions
 * lwipopts.h names. Defined in net/port/random.cc.
 */
#ifndef STARLING_NET_LWIP_ARCH_HOOKS_H_
#define STARLING_NET_LWIP_ARCH_HOOKS_H_

#include "lwip/err.h"
#include "lwip/ip_addr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LWIP_HOOK_TCP_ISN: RFC 6528 initial sequence numbers from a keyed hash of
 * the connection's addresses and ports (net/port/random.h). */
u32_t starling_tcp_isn(const ip_addr_t* local_ip, u16_t local_port, const ip_addr_t* remote_ip,
                       u16_t remote_port);

/* LWIP_HOOK_TCP_SYN_COOKIE: the keyed hash of a SYN cookie (ports in host
 * order, as lwIP keeps them). */
u32_t starling_tcp_syncookie(const ip_addr_t* local_ip, u16_t local_port,
                             const ip_addr_t* remote_ip, u16_t remote_port, u32_t client_isn,
                             u32_t counter);

/* LWIP_HOOK_IP4_REASS_SRC_ADMIT: whether one source may hold `pbufs` pbufs
 * in `datagrams` datagrams waiting for reassembly (net/fairness/reassembly_share.h). */
int starling_ip4_reass_src_admit(u32_t pbufs, u32_t datagrams);

/* LWIP_HOOK_IP6_REASS_SRC_ADMIT (patch 0010): the same share for IPv6, a
 * peer being a /64 (a link-local source: its whole address). */
int starling_ip6_reass_src_admit(u32_t pbufs, u32_t datagrams);

struct tcp_pcb;
struct pbuf;
struct netif;

/* LWIP_HOOK_ICMP6_ERROR_ADMIT (patch 0009): whether an ICMPv6 error may be
 * sent now, a token bucket (net/port/icmp6_rate.h). */
int starling_icmp6_error_admit(u8_t type, u8_t code);

/* LWIP_HOOK_ND6_GET_GW: the next hop for an off-link IPv6 destination, the
 * static gateway of ip6=ADDR/PREFIX,gw=ADDR, or NULL for lwIP's advertised
 * routers (net/port/ip6_gateway.h). */
const ip6_addr_t* starling_nd6_gateway(struct netif* netif, const ip6_addr_t* destination);

/* LWIP_HOOK_TCP_INPACKET_PCB: admits or drops a segment lwIP found a pcb
 * for (net/tcp/peer_share.cc: one peer's share of received pbufs); `seqno`
 * is its first sequence number (host order), `p` its payload. Images and
 * tests without net/tcp get a weak default that admits everything
 * (net/port/hooks.cc). */
err_t starling_tcp_inpacket(struct tcp_pcb* pcb, u32_t seqno, struct pbuf* p);

/* LWIP_HOOK_TCP_WRITE_REF (patch 0023): the pbuf a write without
 * TCP_WRITE_FLAG_COPY sends for `len` bytes at `data`, valid until lwIP
 * frees it, or NULL for no memory (net/tcp/tx_reference.cc: a received
 * buffer's bytes hold that buffer). Images and tests without net/tcp get
 * a weak default, lwIP's own PBUF_ROM (net/lwip/tcp_write_ref_default.cc). */
struct pbuf* starling_tcp_write_ref(struct tcp_pcb* pcb, const u8_t* data, u16_t len);

#ifdef __cplusplus
}
#endif

#endif /* STARLING_NET_LWIP_ARCH_HOOKS_H_ */
