/* lwIP's own fuzz harness (test/fuzz/fuzz_common.c from the pinned source)
 * as a libFuzzer target, built against Starling's lwipopts.h and port instead
 * of upstream's test options. Upstream's lwip_fuzztest() reads one input per
 * process (AFL); here lwIP is set up once, as it does, and every input goes
 * through its own input_pkts() (LWIP_FUZZ_MULTIPACKET: frames behind 2-byte
 * big-endian lengths). The apps upstream starts that Starling does not build
 * (httpd, SNMP, mDNS, DNS) are left out; lwiperf, which the iperf app runs,
 * stays. After each input what lwIP holds for that input's peers is released
 * (connections aborted, reassembly and ARP flushed), so inputs do not
 * depend on each other and pools do not fill up across inputs. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lwip/apps/httpd.h"
#include "lwip/apps/lwiperf.h"
#include "lwip/apps/mdns.h"
#include "lwip/apps/snmp.h"
/* With LWIP_ALTCP 0 (ours), altcp.h names the plain TCP functions
 * altcp_*; upstream's harness includes only altcp_tcp.h, which is empty
 * then. */
#include "lwip/altcp.h"
#include "lwip/dns.h"
#include "lwip/etharp.h"
#include "lwip/ip4_frag.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"

/* Upstream's lwip_fuzztest() is compiled but never called: the apps it
 * starts that our options leave out become no-ops there. */
#define httpd_init() ((void)0)
#define snmp_init() ((void)0)
#define mdns_resp_init() ((void)0)
#define mdns_resp_add_netif(netif, hostname) ((void)0)
#define dns_setserver(index, server) ((void)0)
/* Its static ARP entry (LWIP_FUZZ_STATICARP) names a dual-stack address
 * (`u_addr.ip4`); ours is IPv4 only, and the option is never asked for. */
#define etharp_add_static_entry(ip, mac) ((void)0)
#include "external/lwip/test/fuzz/fuzz_common.c"

static struct netif fuzz_netif;
static mem_size_t heap_baseline;

static void require(int condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "lwip_fuzz invariant broken: %s\n", what);
    abort();
  }
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  ip4_addr_t addr;
  ip4_addr_t netmask;
  ip4_addr_t gw;
  (void)argc;
  (void)argv;
  lwip_init();
  IP4_ADDR(&addr, 172, 30, 115, 84);
  IP4_ADDR(&netmask, 255, 255, 255, 0);
  IP4_ADDR(&gw, 172, 30, 115, 1);
  netif_add(&fuzz_netif, &addr, &netmask, &gw, &fuzz_netif, testif_init, ethernet_input);
  netif_set_up(&fuzz_netif);
  netif_set_link_up(&fuzz_netif);
  /* Upstream's fuzz options turn checksum checks off at build time; ours
   * keep them, so the netif turns them off as an offloading NIC would. */
  NETIF_SET_CHECKSUM_CTRL(&fuzz_netif, NETIF_CHECKSUM_GEN_IP | NETIF_CHECKSUM_GEN_UDP |
                                           NETIF_CHECKSUM_GEN_TCP | NETIF_CHECKSUM_GEN_ICMP);
  require(lwiperf_start_tcp_server_default(NULL, NULL) != NULL, "lwiperf server");
  etharp_cleanup_netif(&fuzz_netif);
  heap_baseline = lwip_stats.mem.used;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int i;
  input_pkts(LWIP_FUZZ_MULTIPACKET, &fuzz_netif, data, size);

  while (tcp_active_pcbs != NULL) tcp_abort(tcp_active_pcbs);
  while (tcp_tw_pcbs != NULL) tcp_abort(tcp_tw_pcbs);
  for (i = 0; i <= IP_REASS_MAXAGE; ++i) ip_reass_tmr();
  etharp_cleanup_netif(&fuzz_netif);

  require(lwip_stats.memp[MEMP_PBUF_POOL]->used == 0, "PBUF_POOL pbufs returned");
  require(lwip_stats.memp[MEMP_PBUF]->used == 0, "PBUF_REF pbufs returned");
  require(lwip_stats.memp[MEMP_TCP_PCB]->used == 0, "TCP PCBs returned");
  require(lwip_stats.memp[MEMP_TCP_SEG]->used == 0, "TCP segments returned");
  require(lwip_stats.memp[MEMP_REASSDATA]->used == 0, "reassembly entries returned");
  require(lwip_stats.memp[MEMP_ARP_QUEUE]->used == 0, "ARP queue entries returned");
  require(lwip_stats.mem.used == heap_baseline, "lwIP heap back to its baseline");
  return 0;
}
