#include "net/http/server_metrics.h"

#include <string_view>

#include "net/http/body_buffer.h"
#include "net/http/server.h"
#include "net/http/status.h"

namespace starling::net::http {
namespace {

// code="..." label values: static strings, as the registry keeps views.
constexpr std::string_view code_text(Status s) {
  switch (s) {
    case Status::kContinue:
      return "100";
    case Status::kOk:
      return "200";
    case Status::kNoContent:
      return "204";
    case Status::kMovedPermanently:
      return "301";
    case Status::kNotModified:
      return "304";
    case Status::kPermanentRedirect:
      return "308";
    case Status::kBadRequest:
      return "400";
    case Status::kUnauthorized:
      return "401";
    case Status::kForbidden:
      return "403";
    case Status::kNotFound:
      return "404";
    case Status::kMethodNotAllowed:
      return "405";
    case Status::kRequestTimeout:
      return "408";
    case Status::kLengthRequired:
      return "411";
    case Status::kContentTooLarge:
      return "413";
    case Status::kUriTooLong:
      return "414";
    case Status::kExpectationFailed:
      return "417";
    case Status::kHeaderFieldsTooLarge:
      return "431";
    case Status::kInternalServerError:
      return "500";
    case Status::kNotImplemented:
      return "501";
    case Status::kServiceUnavailable:
      return "503";
    case Status::kVersionNotSupported:
      return "505";
  }
  return "0";
}

constexpr std::string_view kManagementHelp =
    "Requests to management routes, by outcome: admitted, unauthorized (401: no or a wrong "
    "token), forbidden (403: closed, or a certificate the CA did not sign).";

}  // namespace

Result<void> register_http_metrics(metrics::Registry& registry) {
  using metrics::Type;
  const ServerStats& s = server_stats();
  const BodyBufferStats& b = body_buffer_stats();
  const struct {
    metrics::SampleSpec spec;
    const std::uint64_t* value;
  } entries[] = {
      {{.name = "starling_http_connections_accepted_total",
        .help = "HTTP connections accepted.",
        .line_key = "http_accepted"},
       &s.connections_accepted},
      {{.name = "starling_http_connections_refused_total",
        .help = "HTTP connections answered 503: every slot was held, or the peer held its share.",
        .line_key = "http_refused"},
       &s.connections_refused},
      {{.name = "starling_http_connections_refused_peer_total",
        .help = "HTTP connections answered 503 because that peer held its share of the slots "
                "(httpd.peer_slots=)."},
       &s.connections_refused_peer},
      {{.name = "starling_http_connections_reset_total",
        .help = "HTTP connections reset: no coroutine frame for their task."},
       &s.connections_reset},
      {{.name = "starling_http_slots",
        .help = "HTTP connection slots held now.",
        .type = Type::kGauge,
        .line_key = "http_slots_used"},
       &s.slots_in_use},
      {{.name = "starling_http_slots_max",
        .help = "The most HTTP connection slots held at once.",
        .type = Type::kGauge},
       &s.slots_high_water},
      {{.name = "starling_http_slots_limit",
        .help = "HTTP connection slots in all (the bound).",
        .type = Type::kGauge},
       &s.slots_total},
      {{.name = "starling_http_requests_total",
        .help = "HTTP requests answered (every status).",
        .line_key = "http_requests"},
       &s.requests},
      {{.name = "starling_http_pipelined_requests_total",
        .help = "HTTP requests already buffered when the one before was answered."},
       &s.pipelined},
      {{.name = "starling_http_head_timeouts_total",
        .help = "HTTP requests answered 408: the head was not whole in time."},
       &s.head_timeouts},
      {{.name = "starling_http_body_timeouts_total",
        .help = "HTTP requests answered 408: the body was not whole in time."},
       &s.body_timeouts},
      {{.name = "starling_http_idle_closes_total",
        .help = "Kept-alive HTTP connections closed for saying nothing."},
       &s.idle_closes},
      {{.name = "starling_http_pressed_idle_closes_total",
        .help = "Kept-alive HTTP connections closed for saying nothing past the shorter "
                "limit, while more than three quarters of the slots were held."},
       &s.pressed_idle_closes},
      {{.name = "starling_http_write_timeouts_total",
        .help = "HTTP connections reset: a response could not be written in time."},
       &s.write_timeouts},
      {{.name = "starling_http_handler_failures_total",
        .help = "HTTP handlers that failed or ran out of time (500 or 503)."},
       &s.handler_failures},
      {{.name = "starling_http_tls_connections_total",
        .help = "HTTPS connections accepted on the TLS port."},
       &s.tls_connections},
      {{.name = "starling_http_tls_handshake_timeouts_total",
        .help = "HTTPS connections reset: the TLS handshake was not done in time."},
       &s.handshake_timeouts},
      {{.name = "starling_http_tls_handshakes_waited_total",
        .help = "TLS handshakes that waited: their peer already had its limit in progress."},
       &s.handshakes_waited},
      {{.name = "starling_http_tls_peer_handshakes_max",
        .help = "The most TLS handshakes one peer has had in progress at once.",
        .type = Type::kGauge},
       &s.peer_handshakes_peak},
      {{.name = "starling_http_redirects_total",
        .help = "Requests on the plain port answered 308 to https://."},
       &s.redirects},
      {{.name = "starling_http_management_requests_total",
        .help = kManagementHelp,
        .labels = {metrics::Label{.name = "outcome", .value = "admitted"}},
        .label_count = 1},
       &s.management_admitted},
      {{.name = "starling_http_management_requests_total",
        .help = kManagementHelp,
        .labels = {metrics::Label{.name = "outcome", .value = "unauthorized"}},
        .label_count = 1,
        .line_key = "http_management_401"},
       &s.management_unauthorized},
      {{.name = "starling_http_management_requests_total",
        .help = kManagementHelp,
        .labels = {metrics::Label{.name = "outcome", .value = "forbidden"}},
        .label_count = 1,
        .line_key = "http_management_403"},
       &s.management_forbidden},
      {{.name = "starling_http_received_bytes_total", .help = "Bytes of HTTP requests read."},
       &s.bytes_received},
      {{.name = "starling_http_sent_bytes_total", .help = "Bytes of HTTP responses written."},
       &s.bytes_sent},
      {{.name = "starling_http_body_buffers",
        .help = "Response body buffers leased now.",
        .type = Type::kGauge},
       &b.in_use},
      {{.name = "starling_http_body_buffers_max",
        .help = "The most response body buffers leased at once.",
        .type = Type::kGauge},
       &b.high_water},
      {{.name = "starling_http_body_buffers_limit",
        .help = "Response body buffers in all (the bound).",
        .type = Type::kGauge},
       &b.total},
      {{.name = "starling_http_body_buffers_refused_total",
        .help = "Response body buffers asked for with every one leased."},
       &b.refused},
  };
  for (const auto& e : entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  for (Status status : kAllStatuses) {
    const metrics::SampleSpec spec{
        .name = "starling_http_responses_total",
        .help = "HTTP responses written, by status code.",
        .labels = {metrics::Label{.name = "code", .value = code_text(status)}},
        .label_count = 1};
    if (auto ok = registry.add(spec, &s.responses[status_index(status)]); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::net::http
