#ifndef STARLING_NET_HTTP_SERVER_H_
#define STARLING_NET_HTTP_SERVER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kernel/async/task.h"
#include "net/http/router.h"
#include "net/http/status.h"

namespace starling::net::tls {
class Server;
}  // namespace starling::net::tls

// The HTTP/1.1 server over the coroutine TCP API: one task per connection,
// in a slot of its own; keep-alive, pipelining (requests already buffered
// are answered in order), HEAD, Content-Length and chunked request bodies,
// Expect: 100-continue, Connection: close, HTTP/1.0 clients.
//
//   Router router(kRoutes);
//   co_await http::serve(router, ServerConfig{.port = 80});   // runs until cancelled
//
// What a peer can make it hold, and the bound (every one counted in
// ServerStats, registered as metrics by server_metrics.h):
//   connection slots: config.slots (<= kMaxSlots), each a head buffer of
//     kHeadBufferBytes, a body buffer of kBodyBytes and a response-head
//     buffer, all in .bss. A connection arriving with every slot held gets
//     "503 Service Unavailable" with Retry-After and is closed.
//   time: the head must be whole within head_timeout_ns of the
//     connection (or of the first byte of a kept-alive connection's next
//     request): else 408 and close (slowloris). A kept-alive connection
//     quiet for idle_timeout_ns is closed without a word; a body must
//     arrive within body_timeout_ns (408); a response that cannot be
//     written for write_timeout_ns resets the connection; a handler that
//     takes longer than handler_timeout_ns is cancelled (503).
//   requests per connection: max_requests, then Connection: close.
//   sizes: see request_parser.h (431, 414, 413, 400, 505).
// Refusals after the head are answered with Connection: close when a body
// may still be on the wire (the stream is then out of step).
//
// HTTPS (config.tls set; docs/tls.md): a second listener on tls_port whose
// connections take the same slots, routes and limits, after a TLS
// handshake bounded by handshake_timeout_ns (past it, or failed: the
// connection is reset, counted in net/tls's TlsStats), at most
// peer_handshakes of one peer's at a time. Responses over TLS
// carry Strict-Transport-Security. The plain port serves the same routes,
// or (plain_redirects) answers every request with 308 to https://.
namespace starling::net::http {

inline constexpr std::size_t kMaxSlots = 64;
inline constexpr std::size_t kHeadBufferBytes = 8 * 1024;
inline constexpr std::size_t kBodyBytes = 8 * 1024;
inline constexpr std::size_t kResponseHeadBytes = 1024;

inline constexpr std::size_t kAutoPeerSlots = 0;

struct ServerConfig {
  std::uint16_t port = 80;
  std::size_t slots = kMaxSlots;
  // Connections lwIP has completed and accept() has not taken yet. A burst
  // (wrk opening 32 at once) arrives in one netif batch, before the accept
  // loop runs: at 16, half of such a burst was reset. PCBs bound it anyway.
  std::size_t backlog = kMaxSlots;
  std::uint64_t head_timeout_ns = 10'000'000'000;
  std::uint64_t idle_timeout_ns = 15'000'000'000;
  // A kept-alive connection's quiet limit while more than three quarters of
  // the slots are held (net/tcp/idle_clock.h): idle holders give way.
  std::uint64_t pressed_idle_timeout_ns = 5'000'000'000;
  std::uint64_t body_timeout_ns = 30'000'000'000;
  std::uint64_t write_timeout_ns = 30'000'000'000;
  std::uint64_t handler_timeout_ns = 10'000'000'000;
  std::uint32_t max_requests = 1000;
  std::uint32_t retry_after_s = 1;  // 503's Retry-After
  // Fairness (docs/hostile-peers.md): slots one peer (an IPv4 address, an
  // IPv6 /64) may hold at once; past them its new connections get 503 with
  // Retry-After while other peers are served. kAutoPeerSlots: below half the slots,
  // (slots - 1) / 2 and at least 1 (31 of 64). Up to `slots` (= no limit).
  std::size_t peer_slots = kAutoPeerSlots;
  // HTTPS: the certificate and key (nullptr: plain HTTP only).
  // (net/tls/tls.h's ServerContext; kMaxSlots sessions.)
  tls::Server* tls = nullptr;
  std::uint16_t tls_port = 443;
  std::uint64_t handshake_timeout_ns = 10'000'000'000;
  // TLS handshakes one peer may have in progress at once; its others wait
  // their turn, within handshake_timeout_ns. A full handshake is ~37 M
  // guest instructions of public-key work, and the handshakes in progress
  // share the hart step by step: without this, a peer holding its 31 slots
  // in handshakes would leave another peer's handshake 1/32 of the hart
  // (docs/tls.md). 0: no limit.
  std::size_t peer_handshakes = 4;
  std::uint32_t hsts_max_age_s = 31'536'000;  // a year, as hstspreload.org asks
  bool plain_redirects = false;               // port 80: 308 to https:// instead of serving
  // Routes marked management (net/http/management.h) admit a request with
  // "Authorization: Bearer <management_token>" (empty: no token), or over
  // TLS with a client certificate the tls::Server's client CA signed.
  // Neither configured: those routes are 403 to everyone.
  std::string_view management_token{};
};

struct ServerStats {
  std::uint64_t connections_accepted = 0;
  std::uint64_t connections_refused = 0;       // 503: every slot held, or the peer's share
  std::uint64_t connections_refused_peer = 0;  // of those, the peer held its share
  std::uint64_t connections_reset = 0;         // no coroutine frame for the connection: RST
  std::uint64_t slots_in_use = 0;
  std::uint64_t slots_high_water = 0;
  std::uint64_t slots_total = 0;
  std::uint64_t requests = 0;             // requests answered (every status)
  std::uint64_t pipelined = 0;            // requests whose bytes were already buffered
  std::uint64_t head_timeouts = 0;        // 408 while the head came in
  std::uint64_t body_timeouts = 0;        // 408 while the body came in
  std::uint64_t idle_closes = 0;          // kept-alive connections closed for quiet
  std::uint64_t pressed_idle_closes = 0;  // ... of them, past the shorter limit under pressure
  std::uint64_t write_timeouts = 0;
  std::uint64_t handler_failures = 0;  // a handler failed or took too long
  std::uint64_t bytes_received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t tls_connections = 0;          // accepted on the TLS port
  std::uint64_t handshake_timeouts = 0;       // TLS handshakes past handshake_timeout_ns
  std::uint64_t handshakes_waited = 0;        // TLS handshakes that waited for their peer's turn
  std::uint64_t peer_handshakes_peak = 0;     // the most one peer had in progress at once
  std::uint64_t redirects = 0;                // 308s to https:// on the plain port
  std::uint64_t management_admitted = 0;      // management requests let through
  std::uint64_t management_unauthorized = 0;  // ... answered 401 (no or wrong token)
  std::uint64_t management_forbidden = 0;     // ... answered 403 (closed, bad certificate)
  std::array<std::uint64_t, kStatusCount> responses{};  // by status_index()
};
const ServerStats& server_stats() noexcept;

// Serves until cancelled (or listening fails: kBusy, kNoMemory). One server
// per image at a time (the slots are its): a second is kBusy.
async::Task<void> serve(const Router& router, ServerConfig config) noexcept;

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_SERVER_H_
