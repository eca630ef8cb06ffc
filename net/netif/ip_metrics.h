#ifndef STARLING_NET_NETIF_IP_METRICS_H_
#define STARLING_NET_NETIF_IP_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

namespace starling::net {

// IP's metrics beside the netif's (docs/metrics.md): entropy for sequence
// numbers, IPv4 address conflicts, the ICMPv6 error rate limit, IPv6
// addresses, groups and the neighbour caches, DNS servers, and one peer's
// share of reassembly. Every network application registers them
// (platform/network.cc); the first refusal (the registry full) is returned.
Result<void> register_ip_metrics(metrics::Registry& registry);

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_IP_METRICS_H_
