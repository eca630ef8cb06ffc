#ifndef STARLING_NET_TCP_TCP_METRICS_H_
#define STARLING_NET_TCP_TCP_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// The coroutine TCP API's metrics (tcp.h's TcpStats): connection slots in
// use and their bound, connections accepted, refused (backlog full, no slot),
// reset, aborted on close, segments refused to a reader that does not read.
namespace starling::net {

Result<void> register_tcp_metrics(metrics::Registry& registry);

}  // namespace starling::net

#endif  // STARLING_NET_TCP_TCP_METRICS_H_
