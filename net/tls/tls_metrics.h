#ifndef STARLING_NET_TLS_TLS_METRICS_H_
#define STARLING_NET_TLS_TLS_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// TLS's samples for the metrics page: handshakes by version, failures by
// kind (starling_tls_failures_total{kind=...}), sessions and Mbed TLS's
// memory against its budget. An app that serves TLS registers them.
namespace starling::net::tls {

Result<void> register_tls_metrics(metrics::Registry& registry);

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_TLS_METRICS_H_
