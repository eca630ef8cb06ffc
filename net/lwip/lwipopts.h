/*
 * Starling's lwIP 2.2.1 options (lwIP's opt.h documents each one; anything
 * not set here keeps opt.h's default).
 *
 * The shape: one hart, cooperative coroutines, no threads. lwIP runs only in
 * task context (the netif's RX task, the apps' tasks, the executor's timer
 * tick) and never from an interrupt handler, so it needs no locks. The target
 * is the echo app at gigabit line rate: UDP echo, TCP echo with 50 concurrent
 * clients, and single-stream iperf.
 */
#ifndef STARLING_NET_LWIP_LWIPOPTS_H_
#define STARLING_NET_LWIP_LWIPOPTS_H_

/* ---- System: raw API only ------------------------------------------------ */

/* No OS layer: no threads, semaphores or mailboxes. The executor calls
 * sys_check_timeouts(); sys_now() comes from net/lwip/sys_arch.cc. */
#define NO_SYS 1
/* No critical sections: lwIP is never entered from interrupt context and
 * there is one hart. */
#define SYS_LIGHTWEIGHT_PROT 0
/* The sequential and BSD-style APIs need threads; apps use net/'s coroutine
 * API over the raw API instead. */
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_NETIF_API 0
/* lwIP's own timers (sys_timeout), driven by sys_check_timeouts(). */
#define LWIP_TIMERS 1

/* ---- Memory ---------------------------------------------------------------- */

/* RV64: 8-byte alignment keeps u64 fields and DMA-able buffers naturally
 * aligned (a misaligned access traps to M-mode emulation on the U74). */
#define MEM_ALIGNMENT 8

// lwIP's short copies of a constant size (MAC addresses: two per frame sent
// in ethernet_output, more in ARP) as the compiler's builtin: inlined as a
// few loads and stores. -ffreestanding turns plain memcpy() into a call
// even for 6 bytes, measured at ~120 instructions each (issue 14).
#define SMEMCPY(dst, src, len) __builtin_memcpy(dst, src, len)

/* lwIP's own heap, a static array in .bss, not the kernel's malloc: no per
 * packet kernel heap traffic, and a full heap is an ERR_MEM lwIP handles
 * (tcp_write fails, the app waits for sent() and retries) instead of eating
 * the kernel's heap. It holds PBUF_RAM pbufs: TCP data copied by tcp_write
 * and outgoing UDP/ICMP replies. Sized for the echo worst case, 50 clients
 * with data queued: 50 * 16 KB in flight plus headroom = 1 MiB. */
#define MEM_SIZE (1024 * 1024)

/* The RX pool for drivers that copy into pbufs (zero-copy drivers hand lwIP
 * custom pbufs over their DMA buffers instead). 512 full-size frames cover a
 * 256-entry RX ring refilled while 256 frames still sit in TCP receive and
 * out-of-order queues. Each buffer holds one full Ethernet frame
 * (PBUF_POOL_BUFSIZE's default: TCP_MSS + headers), so 512 * ~1.5 KB = 770 KB. */
#define PBUF_POOL_SIZE 512

/* Custom pbufs (pbuf_alloced_custom) are how the netif wraps a DMA buffer for
 * zero-copy RX; make sure they are compiled in whatever else changes. */
#define LWIP_SUPPORT_CUSTOM_PBUF 1

/* PBUF_REF/ROM headers: zero-copy TX of app buffers and UDP echo replies that
 * point into the received packet. One per queued packet, not per byte. */
#define MEMP_NUM_PBUF 256

/* ---- Protocols ----------------------------------------------------------- */

#define LWIP_IPV4 1
/* Dual stack (issue 30, docs/ipv6.md). */
#define LWIP_IPV6 1
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_UDP 1
#define LWIP_TCP 1
#define LWIP_DHCP 1
/* Not needed by the apps: addresses come from DHCP or are static; echo
 * replies do not need raw PCBs. */
#define LWIP_RAW 0
#define LWIP_AUTOIP 0
/* Address conflict detection (RFC 5227; lwIP 2.2's acd module): a DHCP
 * lease is probed before it is bound and declined if another host answers
 * for it; a static address is probed at every link-up and defended
 * (net/netif/address_conflict.h). */
#define LWIP_ACD 1
#define LWIP_DHCP_DOES_ACD_CHECK 1
#define LWIP_IGMP 0
/* The resolver, for the servers DHCP and stateless DHCPv6 hand out
 * (net/netif/dns_servers.h); no app resolves names yet. Two servers, one
 * table entry; queries from a random source port, so no PCB until one is
 * made. */
#define LWIP_DNS 1
#define DNS_MAX_SERVERS 2
#define DNS_TABLE_SIZE 1

/* One ARP entry per peer: 50 echo clients plus the gateway and the iperf and
 * benchmark hosts fit without evicting each other (opt.h's 10 would thrash
 * with 50 clients and drop the packets queued behind each new request). */
#define ARP_TABLE_SIZE 64
/* Queue packets per unresolved address instead of dropping all but the last
 * one while the ARP reply is on its way: up to 16 per address (opt.h's 3
 * dropped the first SYN|ACKs of a client opening 16 connections at once,
 * which then waited 3 s for lwIP's retransmission: the QEMU HTTP tail,
 * //net/tcp:arp_queue_test), 64 in all. Each is a copy on lwIP's heap. */
#define ARP_QUEUEING 1
#define MEMP_NUM_ARP_QUEUE 64
#define ARP_QUEUE_LEN 16

/* One netif (the NIC); no loopback interface. */
#define LWIP_SINGLE_NETIF 1
#define LWIP_HAVE_LOOPIF 0
#define LWIP_NETIF_LOOPBACK 0
/* The netif reports link changes (DHCP restarts on link up) and address
 * changes (apps learn their address). */
#define LWIP_NETIF_STATUS_CALLBACK 1
#define LWIP_NETIF_LINK_CALLBACK 1
/* TX may be a pbuf chain: the driver maps it onto descriptor chains. */
#define LWIP_NETIF_TX_SINGLE_PBUF 0

/* UDP: echo (1235) and utilisation (1237) ports, DHCP, a few spare. */
#define MEMP_NUM_UDP_PCB 8

/* ---- IPv6 (docs/ipv6.md) --------------------------------------------------- */
/* A link-local address and two more: SLAAC's from up to two routers'
 * prefixes, or the static one of ip6=ADDR/PREFIX. */
#define LWIP_IPV6_NUM_ADDRESSES 3
/* SLAAC from router advertisements (RFC 4862), with duplicate address
 * detection on every address; router solicitations at link-up. */
#define LWIP_IPV6_AUTOCONFIG 1
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS 1
#define LWIP_IPV6_SEND_ROUTER_SOLICIT 1
#define LWIP_ND6_ALLOW_RA_UPDATES 1
/* MLD for the groups the stack joins itself (all-nodes, each address's
 * solicited-node group); the netif accepts those groups' frames and drops
 * every other multicast before lwIP sees it. */
#define LWIP_IPV6_MLD 1
#define MEMP_NUM_MLD6_GROUP 8
/* Bounded neighbour discovery: a peer cannot grow these, only evict within
 * them (lwIP replaces the oldest stale entry). Neighbours as many as ARP's
 * table; destinations (the route cache) the same; prefixes and routers a
 * handful, as a LAN has one or two routers (an RA flood of many prefixes
 * fills the table and the rest are ignored). */
#define LWIP_ND6_NUM_NEIGHBORS 64
#define LWIP_ND6_NUM_DESTINATIONS 64
#define LWIP_ND6_NUM_PREFIXES 8
#define LWIP_ND6_NUM_ROUTERS 3
/* Packets held per unresolved neighbour while its solicitation is out, as
 * ARP_QUEUE_LEN; they share MEMP_NUM_ND6_QUEUE. */
#define LWIP_ND6_QUEUEING 1
#define MEMP_NUM_ND6_QUEUE 64
#define LWIP_ND6_MAX_MULTICAST_SOLICIT 3
/* Fragmentation and reassembly, bounded as IPv4's (IP_REASS_MAX_PBUFS
 * covers both). IPV6_FRAG_COPYHEADER: lwIP otherwise overlays its
 * reassembly bookkeeping on the 8-byte fragment header, which only fits
 * with 4-byte pointers; on RV64 it must copy the header instead. */
#define LWIP_IPV6_FRAG 1
#define LWIP_IPV6_REASS 1
#define IPV6_FRAG_COPYHEADER 1
/* Stateless DHCPv6 (RFC 8415 §6.1) with ip6=auto, for DNS servers: lwIP
 * 2.2.1 has no stateful client worth the name ("for now, only stateless
 * works"). One UDP PCB on port 546 while enabled. */
#define LWIP_IPV6_DHCP6 1
#define LWIP_IPV6_DHCP6_STATELESS 1
#define LWIP_DHCP6_MAX_DNS_SERVERS DNS_MAX_SERVERS
/* ICMPv6 errors at most kIcmp6ErrorsPerSecond, in bursts of kIcmp6ErrorBurst
 * (RFC 4443 2.4 (f); patch 0009, net/port/icmp6_rate.h). */
#define LWIP_HOOK_ICMP6_ERROR_ADMIT(type, code) starling_icmp6_error_admit((type), (code))
/* A static default gateway (ip6=ADDR/PREFIX,gw=ADDR): lwIP otherwise only
 * learns routers from advertisements (net/port/ip6_gateway.h). */
#define LWIP_HOOK_ND6_GET_GW(netif, dest) starling_nd6_gateway((netif), (dest))

/* Patch 0017: a reply's headers in place, in front of a received payload.
 * room_start is the lowest address a pbuf's external payload may grow back
 * to: net/netif's RX pool sets it to the start of the received frame on the
 * custom pbufs it wraps a driver's buffer in (the old Ethernet, IP and UDP
 * headers are then the room a reply's new ones take: no header pbuf from
 * the heap, one piece for the driver to send in place). NULL, the default,
 * on every other pbuf: lwIP behaves as unpatched. */
/* in_buffer_of: for a pbuf that refers to bytes inside another pbuf's
 * buffer (net/tcp's pieces of a received segment written back, patch
 * 0023), that pbuf; its room_start then says how much in front of the
 * bytes is free, and the netif sends the segment from that buffer
 * (Netif::send_in_place). NULL on every other pbuf. 16 bytes a pbuf. */
#define LWIP_PBUF_CUSTOM_DATA \
  u8_t* room_start;           \
  struct pbuf* in_buffer_of;
#define LWIP_PBUF_CUSTOM_DATA_INIT(p) ((p)->room_start = NULL, (p)->in_buffer_of = NULL)
/* A payload below room_start (room claimed since: net/tcp) has none. */
#define LWIP_HOOK_PBUF_HEADER_ROOM(p, size)                             \
  ((p)->room_start != NULL && (u8_t*)(p)->payload >= (p)->room_start && \
   (size_t)((u8_t*)(p)->payload - (p)->room_start) >= (size_t)(size))
/* The netif reports each IPv6 address as it becomes valid. */
#define LWIP_NETIF_EXT_STATUS_CALLBACK 1

/* ---- TCP ----------------------------------------------------------------- */

/* Ethernet MTU 1500 - 20 (IP) - 20 (TCP). */
#define TCP_MSS 1460

/* Connections: twice httpd's 64 slots (net/http/server.h kMaxSlots). A
 * connection that finds every slot held is answered 503 and closed, and
 * that needs a PCB too, as does its lingering close and the TIME_WAIT after
 * it: with only 64, a full slot table left none and the 65th client's SYN
 * went unanswered instead (test/http's storm). The same table serves echo's
 * 50 concurrent clients with their utilisation and iperf connections and
 * the PCBs lingering in TIME_WAIT after clients reconnect (lwIP reuses the
 * oldest TIME_WAIT PCB when it runs out). net/tcp's connection table has as
 * many entries. Each costs ~216 bytes here and ~120 in net/tcp, in .bss. */
#define MEMP_NUM_TCP_PCB 128
/* Listeners: echo (1236), iperf (5001), utilisation, spare. */
#define MEMP_NUM_TCP_PCB_LISTEN 8

/* Receive window: 44 segments = 64240 bytes, the most that fits under
 * 64 KiB, so the receive side needs no window scaling and an unread chain's
 * 16-bit tot_len (net/tcp/tcp.cc) cannot overflow. A single stream reaches
 * 1 Gb/s up to an RTT of 64240 * 8 / 1e9 = 0.51 ms. Issue 47 measured 32
 * (46720) against 44 on the host board through test/impaired_link.py: a
 * clean 8 MiB echo 12.0 -> 17.6 MB/s (median of three), 2% loss both ways
 * 10.4 -> 11.3 MB/s (five seeds) with the send buffer below. Beyond 64 KiB
 * (64 segments, receive scaling 1) a clean link gained a little more but
 * at 2% loss an echo whose reader fell behind held over 64 KiB unread, its
 * segments were refused with the ACKs they carried, and every refusal
 * became a retransmission timeout: 2.1 MB/s. Tried again with the unread
 * data kept as several chains: 88 segments met the per-peer share of 95
 * pbufs (Linux's segments carry SACK blocks, 1,440 to 1,448 bytes, so a
 * full window was 90 and more pbufs, and in-window segments were refused);
 * 64 segments gained nothing (13.9 against 14.3 MB/s at the 2% setting,
 * medians of five seeds; docs/benchmarks.md). */
#define TCP_WND (44 * TCP_MSS)

/* Window scaling for the send side only (lwIP's own note on
 * TCP_RCV_SCALE 0): the peer's window is taken at its scale, so the send
 * buffer below may exceed 64 KiB while the receive window above stays
 * unscaled; lwIP's window fields become 32-bit. A SYN's scale option is
 * read before net/tcp fits the new connection's first window to its peer's
 * share (the passive-open callback), so that fitting stands; patch 0001's
 * SYN-cookie probe starts from a default window, which the option's
 * handling asserts. */
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE 0

/* Send buffer per connection: 64 segments (93440 bytes). During a fast
 * recovery everything from the hole on stays queued until the hole is
 * filled; with a buffer the size of the window the writer stopped there,
 * its reader stopped too, and its receive window shut, pacing the peer's
 * direction as well (issue 47's captures: the advertised window averaged
 * a third of its size). Issue 47, host board, 8 MiB echo, five seeds, with
 * patch 0021: 2% loss both ways 10.9 MB/s at 44 segments (no scaling),
 * 16.1 at 64; the 2% setting with duplication, reordering and corruption
 * 7.6 against 11.5 (Linux 24.7 and 22.2 in the same runs). Bytes of lwIP's
 * heap (MEM_SIZE), taken as written; one peer's queued segments are also
 * bounded by its share of the segment pool (net/tcp/tcp.h, 255). */
#define TCP_SND_BUF (64 * TCP_MSS)

/* Segments queued per connection: opt.h's formula (4 * TCP_SND_BUF / MSS,
 * here 256) allows small writes to be queued as many small segments. */
#define TCP_SND_QUEUELEN ((4 * (TCP_SND_BUF) + (TCP_MSS - 1)) / (TCP_MSS))

/* TCP segment descriptors, shared by all connections' send queues and
 * out-of-order queues. Must be >= TCP_SND_QUEUELEN (one connection's full
 * queue); 512 lets several connections have full windows outstanding at once.
 * Each is ~40 bytes. */
#define MEMP_NUM_TCP_SEG 512

/* Keep out-of-order segments (a lost packet at gigabit rates would otherwise
 * cost a whole window of retransmissions). */
#define TCP_QUEUE_OOSEQ 1
/* ... but never more than this per connection: without a limit (opt.h's 0)
 * one peer sending out-of-order segments with gaps before them made the
 * stack keep every one, each pinning a 2 KiB NIC receive buffer, until the
 * ring was dry and the guest answered nobody (issue 12). A window's worth
 * (44 segments with TCP_WND; 8 before issue 47): a frame held back 15 ms
 * on a link at 10 MB/s is overtaken by about a hundred, and with only 8
 * kept the rest of the window was dropped and sent again, every time (5%
 * reordering alone cut one stream from 9.5 MB/s to 85 KB/s). One peer's
 * out-of-order data still counts towards its share of received buffers
 * (net/tcp/tcp.h: 95, above one connection's 44 + 44), and is the first
 * thing that share gives up. The whole receive budget is stated in
 * docs/hostile-peers.md. */
#define TCP_OOSEQ_MAX_PBUFS 44
#define TCP_OOSEQ_MAX_BYTES (44 * TCP_MSS)
/* Tell the sender what arrived out of order (RFC 2018 SACK blocks, at most
 * four, lwIP's default): a sender with SACK (Linux) then resends only what
 * is missing instead of everything after the first hole. */
#define LWIP_TCP_SACK_OUT 1
/* Fast retransmits each connection remembers for a D-SACK to undo (patch
 * 0013; its default 4). A frame the link holds back is reported twice only
 * when the late original arrives, and by then later episodes have begun: at
 * issue 47's 2% setting (5% of frames held 15 ms) an 8 MiB echo from the
 * host board made ~205 fast retransmits and 4 remembered let 3 to 5 of them
 * be undone, so every held frame halved the window for good; 16 undo ~130,
 * and goodput rose from 15.7 to 17.9 MB/s (medians of five seeds; Linux
 * 26.7 in the same runs). 12 bytes an episode: 192 a connection. */
#define TCP_UNDO_EPISODES 16
/* lwIP's TCP timers: the fast one (delayed ACKs, refused data) every
 * 50 ms and the slow one (retransmissions, persist, keepalive) every
 * 100 ms, not 250 and 500; and a first retransmission timeout of 1 s (RFC
 * 6298 section 2.1), not lwIP's 3 s. The retransmission timer counts slow
 * ticks and its estimate settles at three of them, so on a link with a
 * round trip of a millisecond every timeout was at least a second and a
 * half, and each lost retransmission doubled it: at 8% loss a stream
 * stopped for 10 s and more (issue 47, docs/lwip.md; 100 ms ticks still
 * left gaps of 8 s). The timers run only while TCP has connections (lwIP's
 * tcp_timer_needed()). */
#define TCP_TMR_INTERVAL 50
#define LWIP_TCP_RTO_TIME 1000
/* When PBUF_POOL runs dry (small and copied frames live there, see
 * net/netif/rx_pool.h), free out-of-order queues: with NO_SYS lwIP flags it
 * and sys_check_timeouts() frees one connection's queue per call. */
#define PBUF_POOL_FREE_OOSEQ 1
/* One extension argument per pcb: net/tcp sets a new connection's first
 * receive window from its peer's share in the passive-open callback, before
 * the SYN-ACK offers it (issue 47). */
#define LWIP_TCP_PCB_NUM_EXT_ARGS 1

/* Timers: lwIP's own (TCP, ARP, DHCP, DNS, reassembly, ND, MLD, DHCPv6),
 * the DNS server watch (net/netif/dns_servers.h), plus room for the apps'
 * own sys_timeout()s. */
#define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1 + 4)

/* ---- Checksums ------------------------------------------------------------- */

/* Computed in software by default. A netif whose NIC offloads checksums
 * (virtio-net's VIRTIO_NET_F_CSUM, DWMAC's COE) turns them off for itself at
 * run time with NETIF_SET_CHECKSUM_CTRL(); a build can also turn any of them
 * off globally with -DCHECKSUM_GEN_xxx=0. */
#define LWIP_CHECKSUM_CTRL_PER_NETIF 1
#ifndef CHECKSUM_GEN_IP
#define CHECKSUM_GEN_IP 1
#endif
#ifndef CHECKSUM_GEN_UDP
#define CHECKSUM_GEN_UDP 1
#endif
#ifndef CHECKSUM_GEN_TCP
#define CHECKSUM_GEN_TCP 1
#endif
#ifndef CHECKSUM_GEN_ICMP
#define CHECKSUM_GEN_ICMP 1
#endif
#ifndef CHECKSUM_CHECK_IP
#define CHECKSUM_CHECK_IP 1
#endif
#ifndef CHECKSUM_CHECK_UDP
#define CHECKSUM_CHECK_UDP 1
#endif
#ifndef CHECKSUM_CHECK_TCP
#define CHECKSUM_CHECK_TCP 1
#endif
#ifndef CHECKSUM_CHECK_ICMP
#define CHECKSUM_CHECK_ICMP 1
#endif
/* An IPv4 header's checksum summed as ip4_output_if_src() writes the
 * fields (lwIP's inline option), not by a second pass over the 20 bytes
 * through inet_chksum(): one of the two checksum calls of every IPv4 packet
 * sent (the other checks a received header). Measured by the cost gate
 * (docs/benchmarks.md). */
#define LWIP_INLINE_IP_CHKSUM 1
/* The checksum routine itself is ours (LWIP_CHKSUM in arch/cc.h, 64 bits at
 * a time: net/lwip/checksum.cc); algorithm 3 is what lwIP would use without. */
#define LWIP_CHKSUM_ALGORITHM 3

/* ---- SNTP (net/sntp: lwIP's app, RFC 4330) ----------------------------------- */

/* Up to two servers, from sntp= on the command line or handed out by DHCP
 * (option 42) or stateless DHCPv6 (option 31); no names (no DNS lookup). */
#define SNTP_SERVER_DNS 0
#define LWIP_DHCP_GET_NTP_SRV 1
#define LWIP_DHCP_MAX_NTP_SERVERS 2
#define LWIP_DHCP6_GET_NTP_SRV 1
#define LWIP_DHCP6_MAX_NTP_SERVERS 2
#define SNTP_MAX_SERVERS 2
/* Responses must answer our request (originate timestamp, level 2) and come
 * from a synchronised server (level 3, patch 0019); the offset corrects for
 * half the round trip (RFC 4330's clock offset). */
#define SNTP_CHECK_RESPONSE 3
#define SNTP_COMP_ROUNDTRIP 1
#define SNTP_STARTUP_DELAY 0
/* The poll interval is sntp.poll_s= (15 s to a day, default an hour),
 * checked against RFC 4330's 15 s floor where it is read (net/sntp). */
#define SNTP_SUPPRESS_DELAY_CHECK
#define SNTP_UPDATE_DELAY starling_sntp_poll_ms()
/* The wall clock (kernel/wall_clock) is read and set in NTP's format, and
 * every refused response is counted (net/sntp/sntp.cc defines these). */
#define SNTP_GET_SYSTEM_TIME_NTP(s, f) starling_sntp_get_time(&(s), &(f))
#define SNTP_SET_SYSTEM_TIME_NTP(s, f) starling_sntp_set_time((s), (f))
#define SNTP_RESPONSE_REFUSED(why) starling_sntp_refused(why)
/* Patch 0020: a request that could not be sent is tried again in 1 s. */
#define SNTP_REQUEST_UNSENT() starling_sntp_unsent()
#if !defined(__ASSEMBLER__)
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
uint32_t starling_sntp_poll_ms(void);
void starling_sntp_get_time(int32_t* sec, uint32_t* frac);
void starling_sntp_set_time(int32_t sec, uint32_t frac);
void starling_sntp_refused(int why);
void starling_sntp_unsent(void);
#ifdef __cplusplus
}
#endif
#endif

/* ---- Hooks ------------------------------------------------------------------ */

/* arch/hooks.h declares them; net/port/random.cc defines them. */
#define LWIP_HOOK_FILENAME "arch/hooks.h"
/* RFC 6528 initial sequence numbers: a keyed hash of the connection's
 * addresses and ports plus a 4 us clock, the key from the board's entropy.
 * (Without the hook lwIP's ISN is a counter plus tcp_ticks: the same for
 * every SYN while no connection is active.) */
#define LWIP_HOOK_TCP_ISN(local_ip, local_port, remote_ip, remote_port) \
  starling_tcp_isn((local_ip), (local_port), (remote_ip), (remote_port))

/* SYN cookies (net/lwip/patches/0001-tcp-syn-cookies.patch): once 8
 * connections are half-open, listeners answer SYNs without creating a PCB,
 * so a flood of spoofed SYNs holds at most 8 connection slots (for lwIP's
 * 20 s SYN_RCVD timeout) and new clients still get in. Not for every SYN: a
 * cookie ISN is not monotonic for a 4-tuple, and a peer reusing a port it
 * still has in TIME_WAIT (QEMU's user networking does, under churn) then
 * takes our SYN|ACK for an old duplicate: the soak test saw an ACK war.
 * The cookie's hash is SipHash under the ISN key (net/port/random.h). */
#define LWIP_TCP_SYN_COOKIES 1
#define LWIP_TCP_SYN_COOKIE_THRESHOLD 8
#define LWIP_HOOK_TCP_SYN_COOKIE(local_ip, local_port, remote_ip, remote_port, client_isn,   \
                                 counter)                                                    \
  starling_tcp_syncookie((local_ip), (local_port), (remote_ip), (remote_port), (client_isn), \
                         (counter))

/* IPv4 reassembly: 64 pbufs (lwIP's default is 10) in 16 datagrams (5), so
 * that one peer's share, below half of each (31 pbufs in 7 datagrams:
 * net/fairness/reassembly_share.h, starling.reass_peer_share=), still holds a
 * 45 KB datagram. Past its share a peer's own oldest datagram goes, never
 * another peer's (net/lwip/patches/0006-ip4-reassembly-per-source-share.patch).
 * Fragments of more than 256 bytes hold NIC buffers, which the receive
 * budget bounds as a whole (net/netif/rx_pool.h). */
#define IP_REASS_MAX_PBUFS 64
#define MEMP_NUM_REASSDATA 16
#define LWIP_HOOK_IP4_REASS_SRC_ADMIT(pbufs, datagrams) \
  starling_ip4_reass_src_admit((pbufs), (datagrams))
/* The same share for IPv6 (patch 0010): a peer is a /64. */
#define LWIP_HOOK_IP6_REASS_SRC_ADMIT(pbufs, datagrams) \
  starling_ip6_reass_src_admit((pbufs), (datagrams))

/* One peer's share of received pbufs (net/tcp/tcp.h, kDefaultTcpPeerRxPbufs):
 * every segment lwIP found a pcb for is offered to net/tcp before lwIP reads
 * it, so data past the share is dropped before it is queued (out of order
 * first), not after. tcp_input() has turned the header's sequence number to
 * host order by then, and `p` holds the payload only. */
#define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
  starling_tcp_inpacket((pcb), (hdr)->seqno, (p))

/* A write without TCP_WRITE_FLAG_COPY (patch 0023): the data pbuf of each
 * segment piece comes from net/tcp, which, for bytes a connection received
 * and writes back (TcpStream::write of what peek() showed), makes one that
 * holds the received buffer until lwIP frees the segment. */
#define LWIP_HOOK_TCP_WRITE_REF(pcb, data, len) starling_tcp_write_ref((pcb), (data), (len))

/* ---- Statistics and debugging ------------------------------------------- */

/* Only the pool and heap counters: they give each pool's high-water mark
 * (lwip_stats.memp[i]->max, lwip_stats.mem.max), which the echo app reports,
 * at one increment per allocation. The per-layer packet counters cost a
 * read-modify-write per packet per layer: off for throughput. */
#define LWIP_STATS 1
#define MEM_STATS 1
#define MEMP_STATS 1
#define LINK_STATS 0
#define ETHARP_STATS 0
#define IP_STATS 0
#define IPFRAG_STATS 0
#define ICMP_STATS 0
#define UDP_STATS 0
#define TCP_STATS 0
#define SYS_STATS 0
/* Assertions stay on in every build (they end in the kernel's panic). */

#endif /* STARLING_NET_LWIP_LWIPOPTS_H_ */
