#ifndef STARLING_NET_HTTP_SERVER_METRICS_H_
#define STARLING_NET_HTTP_SERVER_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// The HTTP server's counters (server.h's ServerStats) and the body buffers'
// (body_buffer.h) in the image's metrics: starling_http_responses_total with
// a code="..." label per status, connections, slots, timeouts, bytes.
namespace starling::net::http {

Result<void> register_http_metrics(metrics::Registry& registry);

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_SERVER_METRICS_H_
