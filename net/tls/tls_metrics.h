#ifndef STARLING_NET_TLS_TLS_METRICS_H_
#define STARLING_NET_TLS_TLS_METRICS_H_

#include <cstdint>

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// TLS's samples for the metrics page: whether TLS is served and if not why
// (starling_tls_state{state=...}), handshakes by version, failures by kind
// (starling_tls_failures_total{kind=...}), sessions and Mbed TLS's memory
// against its budget. An app that can serve TLS registers them whether or
// not it does, so a board that refused (no entropy, no certificate) says so
// on the page as well as on the console.
namespace starling::net::tls {

// Why TLS is or is not served. On the page a Prometheus state set: one
// sample per state, the current one 1 and the others 0, so an alert can
// match `starling_tls_state{state="no_entropy"} == 1`.
enum class ServingState : std::uint8_t {
  kServing,         // a certificate and key were taken: HTTPS is up
  kNoCredentials,   // no certificate and key were given (the default state)
  kNoEntropy,       // the board has no entropy source: TLS refused
  kBadCredentials,  // the certificate or key could not be used
};

void set_serving_state(ServingState state) noexcept;

Result<void> register_tls_metrics(metrics::Registry& registry);

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_TLS_METRICS_H_
