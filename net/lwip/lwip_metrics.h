#ifndef STARLING_NET_LWIP_LWIP_METRICS_H_
#define STARLING_NET_LWIP_LWIP_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// lwIP's memory as metrics, from lwIP's public statistics (lwip/stats.h:
// MEMP_STATS and MEM_STATS, on in lwipopts.h): per memp pool its size, use,
// peak and refused allocations (label pool="PBUF_POOL", ...), the heap's
// bytes in use, peak and failures; and the TCP PCBs on the active and
// TIME-WAIT lists. What a peer can make the stack hold, each with its bound
// beside it (the pool's size). Values are read when rendered; lwIP must
// have been initialised by then (the netif's start() does it).
namespace starling::net {

Result<void> register_lwip_metrics(metrics::Registry& registry);

}  // namespace starling::net

#endif  // STARLING_NET_LWIP_LWIP_METRICS_H_
