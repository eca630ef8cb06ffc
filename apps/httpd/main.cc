// httpd: an HTTP/1.1 server (net/http) on port 80, serving
//   GET /            the site embedded at build time (site/: index.html, ...),
//                    Content-Type by extension, ETag and 304
//   GET /metrics     the image's metrics in Prometheus's text format 0.0.4,
//                    to its owner only: a bearer token (boot file
//                    management/token) or, over HTTPS, a client certificate
//                    signed by management/client-ca.pem; else 401/403
//   GET /healthz     "ok" while the server runs
//   POST /echo       the request body back (up to 8 KiB; more is 413)
// on every board (QEMU virt, the Star64, the host board).
//
// Kernel command line (QEMU: -append):
//   ip=...                  the address, as for every app (platform/network.h)
//   httpd.slots=N           connection slots, 1..64 (default 64): one more
//                           connection than that gets 503 with Retry-After
//   httpd.head_timeout_ms=N a request's head must be whole within N ms
//                           (default 10000): slower is 408 (slowloris)
//   httpd.handshake_timeout_ms=N  a TLS handshake must end within N ms
//                           (default 10000): slower is reset and counted
//   httpd.peer_handshakes=N TLS handshakes one peer may have in progress at
//                           once, 0..64 (default 4; 0: no limit): its others
//                           wait their turn (docs/tls.md)
//   httpd.http=serve|redirect  with HTTPS on, port 80 serves the same
//                           routes (default) or answers 308 to https://
//
// HTTPS on port 443 (docs/tls.md) when the boot files (the initrd,
// docs/boot-files.md) hold tls/cert.pem and tls/key.pem: the console prints
// the certificate's SHA-256 fingerprint, or why HTTPS is off (also on the
// metrics page: starling_tls_state{state="no_entropy"} and the like).
// `bazel run //apps/httpd:qemu` forwards 127.0.0.1:18080/tcp (or
// STARLING_HTTPD_PORT) to the guest's port 80 and prints it.

#include <cstdint>
#include <span>
#include <string_view>

#include "apps/httpd/site_files.h"
#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "kernel/boot/app.h"
#include "kernel/boot/boot_files.h"
#include "kernel/console/console.h"
#include "kernel/lib/bootargs.h"
#include "kernel/metrics/page.h"
#include "kernel/metrics/prometheus.h"
#include "kernel/metrics/registry.h"
#include "kernel/text/writer.h"
#include "net/http/body_buffer.h"
#include "net/http/management.h"
#include "net/http/router.h"
#include "net/http/server.h"
#include "net/http/server_metrics.h"
#include "net/http/site.h"
#include "net/tls/tls.h"
#include "net/tls/tls_metrics.h"
#include "platform/network.h"

namespace starling {
namespace {

using console::print;
using net::http::Response;
using net::http::Status;

async::Task<Response> metrics_page(const net::http::Request&) {
  Response r;
  r.buffer = net::http::BodyBuffer::try_acquire();
  if (!r.buffer.valid()) {
    // Every render buffer is out: a moment, not a failure.
    Response busy = net::http::status_response(Status::kServiceUnavailable);
    (void)busy.add_header("Retry-After", "1");
    co_return busy;
  }
  // Timed: the page shows what the one before it cost (kernel/metrics/page.h).
  auto n = metrics::render_page(metrics::registry(), r.buffer.data());
  if (!n.ok()) co_return net::http::status_response(Status::kInternalServerError);
  r.content_type = metrics::kContentType;
  r.body = std::as_bytes(r.buffer.data().first(*n));
  co_return r;
}

// docs/http.md shows the handlers and the table (test/lint/doc_snippets.py).
// snippet-begin: routes
async::Task<Response> healthz(const net::http::Request&) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.set_body("ok\n");
  co_return r;
}

// The body is written from the slot it was read into (a request's views
// live until its response is written): no buffer, no copy.
async::Task<Response> echo(const net::http::Request& request) {
  Response r;
  r.content_type = "application/octet-stream";
  r.body = request.body;
  co_return r;
}

const net::http::Route kRoutes[] = {
    {.path = "/metrics", .handler = metrics_page, .management = true},
    {.path = "/healthz", .handler = healthz},
    {.path = "/echo",
     .methods = net::http::method_bit(net::http::Method::kPost),
     .handler = echo,
     .max_body = net::http::kBodyBytes},
    {.path = "/", .prefix = true, .handler = net::http::serve_site, .context = &site::site()},
};
// snippet-end: routes

// httpd's numeric options on the kernel command line, each declared once
// (kernel/lib/bootargs.h's NumberParam: one parser, one refusal with its fix).
constexpr NumberParam kSlotsParam{.key = "httpd.slots",
                                  .low = 1,
                                  .high = net::http::kMaxSlots,
                                  .fallback = net::http::kMaxSlots,
                                  .off = false,
                                  .help = "HTTP connection slots"};
constexpr NumberParam kHeadTimeoutParam{.key = "httpd.head_timeout_ms",
                                        .low = 1,
                                        .high = 600'000,
                                        .fallback = 10'000,
                                        .off = false,
                                        .help = "milliseconds a request's head may take to arrive"};
constexpr NumberParam kHandshakeTimeoutParam{.key = "httpd.handshake_timeout_ms",
                                             .low = 1,
                                             .high = 600'000,
                                             .fallback = 10'000,
                                             .off = false,
                                             .help = "milliseconds a TLS handshake may take"};
constexpr NumberParam kPeerHandshakesParam{
    .key = "httpd.peer_handshakes",
    .low = 0,
    .high = net::http::kMaxSlots,
    .fallback = net::http::ServerConfig{}.peer_handshakes,
    .off = false,
    .help = "TLS handshakes one peer may have under way at once"};
constexpr NumberParam kPeerSlotsParam{
    .key = "httpd.peer_slots",
    .low = 0,
    .high = net::http::kMaxSlots,
    .fallback = net::http::kAutoPeerSlots,
    .off = false,
    .help = "HTTP connection slots one peer may hold; 0: below half the slots"};

// `param`'s value, or its fallback with a console line saying why.
std::uint64_t number_arg(std::string_view bootargs, const NumberParam& param) {
  text::Line<160> why;
  const NumberParamReading reading = read_number_param(bootargs, param, why);
  if (reading.refused) console::print_ignoring("httpd", {why.view()});
  return reading.value;
}

// The management token from the boot files (empty: none; the console says
// why a file was refused).
std::string_view management_token() {
  const auto file = boot::boot_file("management/token");
  if (!file) return {};
  const std::string_view token =
      net::http::parse_token({reinterpret_cast<const char*>(file->data()), file->size()});
  if (token.empty()) {
    print(
        "httpd: management/token refused: want one line of 16 to 256 visible ASCII characters "
        "(make one: openssl rand -hex 32)\n");
  }
  return token;
}

// HTTPS from the boot files, or nullptr (the console says why not).
net::tls::ServerContext* https_context() {
  const auto cert = boot::boot_file("tls/cert.pem");
  const auto key = boot::boot_file("tls/key.pem");
  if (!cert || !key) {
    print(
        "httpd: https off: no tls/cert.pem and tls/key.pem in the boot files "
        "(docs/boot-files.md)\n");
    return nullptr;
  }
  const auto client_ca = boot::boot_file("management/client-ca.pem");
  static net::tls::ServerContext context;
  if (auto ok = context.init(*cert, *key, client_ca ? *client_ca : std::span<const std::byte>{});
      !ok.ok()) {
    net::tls::set_serving_state(context.refused_for_entropy()
                                    ? net::tls::ServingState::kNoEntropy
                                    : net::tls::ServingState::kBadCredentials);
    print("httpd: https off: ");
    print(context.reason());
    print("\n");
    return nullptr;
  }
  net::tls::set_serving_state(net::tls::ServingState::kServing);
  text::Line<160> line;  // "httpd: certificate sha256 " + 32 bytes as "AB:" + "\n"
  line.put("httpd: certificate sha256 ");
  bool first = true;
  for (const std::uint8_t b : context.fingerprint()) {
    if (!first) line.put(':');
    line.put_hex(b, 2, /*upper=*/true);
    first = false;
  }
  line.put('\n');
  print(line.view());
  return &context;
}

async::Task<int> serve(const BootInfo& boot) {
  async::Scope scope;
  auto network = co_await board::bring_up_network("httpd", boot, scope);
  if (!network.ok()) co_return board::kNetworkFailed;
  net::http::ServerConfig config{.port = 80};
  config.slots = number_arg(network->bootargs, kSlotsParam);
  config.head_timeout_ns = number_arg(network->bootargs, kHeadTimeoutParam) * async::kMillisecond;
  config.handshake_timeout_ns =
      number_arg(network->bootargs, kHandshakeTimeoutParam) * async::kMillisecond;
  config.peer_handshakes = number_arg(network->bootargs, kPeerHandshakesParam);
  config.peer_slots = number_arg(network->bootargs, kPeerSlotsParam);
  if (auto ok = net::http::register_http_metrics(metrics::registry()); !ok.ok()) {
    print("httpd: metrics not all registered: ");
    print(error_name(ok.error()));
    print("\n");
  }
  config.tls = https_context();
  // Whether HTTPS is on or not: starling_tls_state says which, and why not.
  if (auto ok = net::tls::register_tls_metrics(metrics::registry()); !ok.ok()) {
    print("httpd: tls metrics not all registered\n");
  }
  if (config.tls != nullptr) {
    const auto mode = bootarg_value(network->bootargs, "httpd.http");
    if (mode.found && mode.value == "redirect") {
      config.plain_redirects = true;
    } else if (mode.found && mode.value != "serve") {
      console::print_ignoring("httpd", {"httpd.http= (want serve or redirect)"});
    }
  }
  config.management_token = management_token();
  const bool certificates = config.tls != nullptr && config.tls->verifies_clients();
  if (config.management_token.empty() && !certificates) {
    print(
        "httpd: /metrics closed (403 to all): no management/token or management/client-ca.pem "
        "in the boot files (docs/tls.md)\n");
  } else {
    print("httpd: /metrics for its owner: ");
    print(config.management_token.empty() ? "" : "bearer token");
    print(!config.management_token.empty() && certificates ? " or " : "");
    print(certificates ? "client certificate" : "");
    print("\n");
  }
  // snippet-begin: serve
  static const net::http::Router router(kRoutes);
  (void)scope.spawn(net::http::serve(router, config));
  // snippet-end: serve
  if (config.tls != nullptr) {
    print(config.plain_redirects ? "httpd: serving https on port 443, port 80 redirects to it\n"
                                 : "httpd: serving https on port 443\n");
  }
  print("httpd: serving http on port 80 (");
  console::print_dec(static_cast<std::int64_t>(config.slots));
  print(" slots, ");
  console::print_dec(static_cast<std::int64_t>(site::site().files.size()));
  print(" site files)\n");
  co_return co_await board::serve_until_stopped("httpd", scope);
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::serve(boot));
  return code.ok() ? *code : 1;
}
