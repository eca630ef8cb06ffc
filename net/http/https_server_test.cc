// HTTPS end to end over lwIP's loopback (net/tcp/tests), under ASan/UBSan:
// the server's TLS port (net/tls over the TCP stream), an Mbed TLS client in
// the same process. The same routes as plain HTTP, with
// Strict-Transport-Security; the plain port redirecting; a plain-text
// client on the TLS port, a silent one past the handshake deadline, and
// afterwards no slot, TLS session or TLS memory held.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "mbedtls/ssl.h"
#include "net/http/server.h"
#include "net/tcp/tests/tcp_harness.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/test_identity.h"
#include "net/tls/tls.h"

extern "C" {
#include "mbedtls/psa_util.h"
}

namespace starling::net::http {
namespace {

using async::kMillisecond;
using async::Task;
using net::testing::kServer;

std::uint16_t g_port = 9080;

Task<Response> hello(const Request&) {
  Response r;
  r.content_type = "text/plain";
  r.set_body("hello");
  co_return r;
}

constexpr Route kRoutes[] = {{.path = "/hello", .handler = hello},
                             {.path = "/private", .handler = hello, .management = true}};
const Router kRouter(kRoutes);

// The client's side: no certificate check (the test's certificate is
// self-signed; the server's chain is not what is tested here), and a
// certificate of its own if given one.
struct Client {
  explicit Client(const tls::testing::TestIdentity* identity = nullptr) {
    mbedtls_x509_crt_init(&crt);
    mbedtls_pk_init(&key);
    mbedtls_ssl_config_init(&conf);
    EXPECT_EQ(mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT,
                                          MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT),
              0);
    mbedtls_ssl_conf_rng(&conf, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
    mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
    if (identity != nullptr) {
      const auto& c = identity->cert_pem;
      const auto& k = identity->key_pem;
      EXPECT_EQ(mbedtls_x509_crt_parse(&crt, reinterpret_cast<const unsigned char*>(c.c_str()),
                                       c.size() + 1),
                0);
      EXPECT_EQ(mbedtls_pk_parse_key(&key, reinterpret_cast<const unsigned char*>(k.c_str()),
                                     k.size() + 1, nullptr, 0, mbedtls_psa_get_random,
                                     MBEDTLS_PSA_RANDOM_STATE),
                0);
      EXPECT_EQ(mbedtls_ssl_conf_own_cert(&conf, &crt, &key), 0);
    }
  }
  ~Client() {
    mbedtls_ssl_config_free(&conf);
    mbedtls_pk_free(&key);
    mbedtls_x509_crt_free(&crt);
  }
  mbedtls_ssl_config conf;
  mbedtls_x509_crt crt;
  mbedtls_pk_context key;
};

Task<std::string> read_until(tls::TlsStream& s, std::string_view end) {
  std::string out;
  char buf[2048];
  while (out.find(end) == std::string::npos) {
    auto got = co_await async::with_timeout(
        s.read(std::as_writable_bytes(std::span(buf, sizeof buf))), 2000 * kMillisecond);
    if (!got || *got == 0) break;
    out.append(buf, *got);
  }
  co_return out;
}

class HttpsServerTest : public net::testing::TcpTest {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(tls::init_mbedtls().ok()); }
  void SetUp() override {
    TcpTest::SetUp();
    identity_ = tls::testing::make_test_identity();
    ASSERT_FALSE(identity_.cert_pem.empty());
    ASSERT_TRUE(context_.init(identity_.cert(), identity_.key()).ok()) << context_.reason();
    memory_before_ = tls::tls_memory_stats().in_use;
  }
  void TearDown() override {
    TcpTest::TearDown();
    EXPECT_EQ(server_stats().slots_in_use, 0u) << "a connection slot leaked";
    EXPECT_EQ(tls::tls_stats().sessions_in_use, 0u) << "a TLS session leaked";
    EXPECT_EQ(tls::tls_memory_stats().in_use, memory_before_) << "TLS memory leaked";
  }

  // Runs `client` against a server with `config` (TLS on g_port + 1, with
  // `tls` or the fixture's context).
  void run_with(ServerConfig config, Task<void> client, tls::ServerContext* tls = nullptr) {
    auto body = [](ServerConfig c, Task<void> client) -> Task<void> {
      async::Scope server;
      (void)server.spawn(serve(kRouter, c));
      co_await async::sleep_for(kMillisecond);
      Result<void> r = co_await std::move(client);
      co_await async::sleep_for(50 * kMillisecond);
      server.cancel();
      co_return r;
    };
    g_port += 2;
    config.port = g_port;
    config.tls_port = static_cast<std::uint16_t>(g_port + 1);
    config.tls = tls != nullptr ? tls : &context_;  // a tls::Server
    Result<void> r = run(body(config, std::move(client)));
    if (!r.ok()) ADD_FAILURE() << "the client failed: " << error_name(r.error());
  }

  tls::testing::TestIdentity identity_;
  tls::ServerContext context_;
  std::uint64_t memory_before_ = 0;
};

#define CHECK_OR_FAIL(cond)                               \
  do {                                                    \
    EXPECT_TRUE(cond);                                    \
    if (!(cond)) co_return Unexpected(Error::kMalformed); \
  } while (0)

TEST_F(HttpsServerTest, SameRoutesOverTls13WithHstsAndKeepAlive) {
  const std::uint64_t handshakes = tls::tls_stats().handshakes;
  auto client = []() -> Task<void> {
    Client c;
    auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
    if (!tcp) co_return Unexpected(tcp.error());
    tls::TlsStream s;
    CHECK_OR_FAIL(s.start(*tcp, &c.conf).ok());
    auto hs = co_await s.handshake();
    CHECK_OR_FAIL(hs.ok());
    EXPECT_EQ(s.version(), MBEDTLS_SSL_VERSION_TLS1_3);
    for (int i = 0; i < 2; ++i) {  // kept alive: the second on the same session
      const std::string_view get = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
      auto w = co_await s.write(std::as_bytes(std::span(get.data(), get.size())), true);
      CHECK_OR_FAIL(w.ok());
      const std::string got = (co_await read_until(s, "hello")).value_or("");
      CHECK_OR_FAIL(got.starts_with("HTTP/1.1 200 OK\r\n"));
      CHECK_OR_FAIL(got.find("\r\nStrict-Transport-Security: max-age=31536000\r\n") !=
                    std::string::npos);
      CHECK_OR_FAIL(got.find("\r\nX-Content-Type-Options: nosniff\r\n") != std::string::npos);
    }
    s.notify_close();
    s.finish();
    co_return tcp->close();
  };
  run_with(ServerConfig{}, client());
  // Both ends count: the client's TlsStream is in this process too.
  EXPECT_EQ(tls::tls_stats().handshakes, handshakes + 2);
}

// One request on a new plain connection: the response's head.
Task<std::string> plain_request(std::string request) {
  auto tcp = co_await TcpStream::connect(kServer(g_port));
  if (!tcp) co_return Unexpected(tcp.error());
  (void)co_await tcp->write(std::as_bytes(std::span(request.data(), request.size())));
  std::string got;
  char buf[1024];
  while (got.find("\r\n\r\n") == std::string::npos) {
    auto n = co_await async::with_timeout(
        tcp->read(std::as_writable_bytes(std::span(buf, sizeof buf))), 2000 * kMillisecond);
    if (!n || *n == 0) break;
    got.append(buf, *n);
  }
  (void)tcp->close();
  co_return got;
}

TEST_F(HttpsServerTest, PlainPortRedirectsToHttps) {
  auto client = []() -> Task<void> {
    const auto reply =
        co_await plain_request("GET /hello?x=1 HTTP/1.1\r\nHost: box.example:80\r\n\r\n");
    CHECK_OR_FAIL(reply.ok());
    const std::string& got = *reply;
    CHECK_OR_FAIL(got.starts_with("HTTP/1.1 308 Permanent Redirect\r\n"));
    const std::string location =
        "\r\nLocation: https://box.example:" + std::to_string(g_port + 1) + "/hello?x=1\r\n";
    CHECK_OR_FAIL(got.find(location) != std::string::npos);
    CHECK_OR_FAIL(got.find("Strict-Transport-Security") == std::string::npos);
    co_return {};
  };
  const std::uint64_t redirects = server_stats().redirects;
  run_with(ServerConfig{.plain_redirects = true}, client());
  EXPECT_EQ(server_stats().redirects, redirects + 1);
}

// A refused peer reads a FIN (after the fatal alert, where Mbed TLS sends
// one), even while it is still writing: the server closes with a lingering
// close, not a reset (a reset raced sslscan's next record, and sslscan
// failed on it).
TEST_F(HttpsServerTest, PlainTextOnTheTlsPortIsRefusedWithAnAlertAndAFin) {
  const tls::TlsStats before = tls::tls_stats();
  auto client = []() -> Task<void> {
    auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
    if (!tcp) co_return Unexpected(tcp.error());
    const std::string_view get = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
    (void)co_await tcp->write(std::as_bytes(std::span(get.data(), get.size())));
    // More after the refusal, as a client that has not read it yet writes.
    co_await async::sleep_for(20 * kMillisecond);
    const auto more = co_await tcp->write(std::as_bytes(std::span(get.data(), get.size())));
    CHECK_OR_FAIL(more.ok());
    std::string got;
    char buf[256];
    bool fin = false;
    for (int i = 0; i < 20 && !fin; ++i) {
      auto n = co_await async::with_timeout(
          tcp->read(std::as_writable_bytes(std::span(buf, sizeof buf))), 500 * kMillisecond);
      CHECK_OR_FAIL(n.ok() || n.error() == Error::kTimedOut);  // never a reset
      if (n.ok()) {
        fin = *n == 0;
        got.append(buf, *n);
      }
    }
    CHECK_OR_FAIL(fin);
    // Whatever came before the FIN is a TLS alert record (Mbed TLS sends
    // none for a record type it does not know, as here).
    CHECK_OR_FAIL(got.empty() || got[0] == 0x15);
    co_return tcp->close();
  };
  run_with(ServerConfig{}, client());
  const tls::TlsStats& after = tls::tls_stats();
  EXPECT_EQ(after.handshakes, before.handshakes);
  EXPECT_EQ((after.alerts_sent + after.bad_records) - (before.alerts_sent + before.bad_records),
            1u);
}

TEST_F(HttpsServerTest, SilentClientIsCutOffAtTheHandshakeDeadline) {
  const std::uint64_t timeouts = server_stats().handshake_timeouts;
  const std::uint64_t tls_timeouts = tls::tls_stats().timeouts;
  auto client = []() -> Task<void> {
    auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
    if (!tcp) co_return Unexpected(tcp.error());
    char buf[64];
    auto n = co_await async::with_timeout(
        tcp->read(std::as_writable_bytes(std::span(buf, sizeof buf))), 2000 * kMillisecond);
    // Reset (or closed) by the server well before our 2 s.
    CHECK_OR_FAIL(!n.ok() ? n.error() != Error::kTimedOut : *n == 0);
    tcp->abort();
    co_return {};
  };
  run_with(ServerConfig{.handshake_timeout_ns = 200 * kMillisecond}, client());
  EXPECT_EQ(server_stats().handshake_timeouts, timeouts + 1);
  EXPECT_EQ(tls::tls_stats().timeouts, tls_timeouts + 1);  // kind="timeout" on the page
}

// Eight TLS clients at once from one address (the loopback's): full
// handshakes, each on its own connection.
Task<void> eight_handshakes() {
  auto one = []() -> Task<void> {
    Client c;
    auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
    if (!tcp) co_return Unexpected(tcp.error());
    tls::TlsStream s;
    CHECK_OR_FAIL(s.start(*tcp, &c.conf).ok());
    auto hs = co_await s.handshake();
    CHECK_OR_FAIL(hs.ok());
    s.notify_close();
    s.finish();
    co_return tcp->close();
  };
  async::Scope clients;
  for (int i = 0; i < 8; ++i) (void)clients.spawn(one());
  co_return co_await clients.join();
}

// ServerConfig::peer_handshakes: one peer's handshakes take turns, the
// rest waiting (no CPU) until one of its own ends; all complete. Without
// the limit the same eight run together. (One test: the peak is a high
// water mark since the process started, and no other test here runs
// handshakes side by side.)
TEST_F(HttpsServerTest, OnePeersHandshakesTakeTurns) {
  const std::uint64_t handshakes = tls::tls_stats().handshakes;
  std::uint64_t waited = server_stats().handshakes_waited;
  run_with(ServerConfig{.peer_handshakes = 2}, eight_handshakes());
  EXPECT_EQ(tls::tls_stats().handshakes, handshakes + 16);  // both ends, in this process
  EXPECT_GE(server_stats().handshakes_waited, waited + 1);
  EXPECT_EQ(server_stats().peer_handshakes_peak, 2u);

  waited = server_stats().handshakes_waited;
  run_with(ServerConfig{.peer_handshakes = 0}, eight_handshakes());
  EXPECT_EQ(tls::tls_stats().handshakes, handshakes + 32);
  EXPECT_EQ(server_stats().handshakes_waited, waited);
  EXPECT_GT(server_stats().peer_handshakes_peak, 2u);  // what the limit held back
}

// ---- Management routes (net/http/management.h) ----------------------------

constexpr std::string_view kToken = "0123456789abcdef0123456789abcdef";

TEST_F(HttpsServerTest, ManagementRouteWantsTheBearerToken) {
  const ServerStats before = server_stats();
  auto client = []() -> Task<void> {
    const auto none = co_await plain_request("GET /private HTTP/1.1\r\nHost: t\r\n\r\n");
    CHECK_OR_FAIL(none.ok() && none->starts_with("HTTP/1.1 401 Unauthorized\r\n"));
    CHECK_OR_FAIL(none->find("\r\nWWW-Authenticate: Bearer realm=\"starling\"\r\n") !=
                  std::string::npos);
    const auto wrong = co_await plain_request(
        "GET /private HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer "
        "0123456789abcdef0123456789abcdeX\r\n\r\n");
    CHECK_OR_FAIL(wrong.ok() && wrong->starts_with("HTTP/1.1 401 Unauthorized\r\n"));
    CHECK_OR_FAIL(wrong->find("error=\"invalid_token\"") != std::string::npos);
    const auto basic = co_await plain_request(
        "GET /private HTTP/1.1\r\nHost: t\r\nAuthorization: Basic "
        "0123456789abcdef0123456789abcdef\r\n\r\n");
    CHECK_OR_FAIL(basic.ok() && basic->starts_with("HTTP/1.1 401 Unauthorized\r\n"));
    const auto right = co_await plain_request(
        "GET /private HTTP/1.1\r\nHost: t\r\nAuthorization: bearer "
        "0123456789abcdef0123456789abcdef\r\n\r\n");
    CHECK_OR_FAIL(right.ok() && right->starts_with("HTTP/1.1 200 OK\r\n"));
    // A public route wants nothing.
    const auto open = co_await plain_request("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
    CHECK_OR_FAIL(open.ok() && open->starts_with("HTTP/1.1 200 OK\r\n"));
    co_return {};
  };
  run_with(ServerConfig{.management_token = kToken}, client());
  const ServerStats& after = server_stats();
  EXPECT_EQ(after.management_unauthorized - before.management_unauthorized, 3u);
  EXPECT_EQ(after.management_admitted - before.management_admitted, 1u);
  EXPECT_EQ(after.management_forbidden, before.management_forbidden);
}

TEST_F(HttpsServerTest, ManagementRouteIsClosedWithoutCredentials) {
  const ServerStats before = server_stats();
  auto client = []() -> Task<void> {
    const auto r = co_await plain_request(
        "GET /private HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer "
        "0123456789abcdef0123456789abcdef\r\n\r\n");
    CHECK_OR_FAIL(r.ok() && r->starts_with("HTTP/1.1 403 Forbidden\r\n"));
    CHECK_OR_FAIL(r->find("WWW-Authenticate") == std::string::npos);
    co_return {};
  };
  run_with(ServerConfig{}, client());
  EXPECT_EQ(server_stats().management_forbidden - before.management_forbidden, 1u);
}

// GET /private over TLS 1.3 as `identity` (nullptr: no certificate): the
// response's first line.
Task<std::string> tls_private(const tls::testing::TestIdentity* identity) {
  Client c(identity);
  auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
  if (!tcp) co_return Unexpected(tcp.error());
  tls::TlsStream s;
  if (!s.start(*tcp, &c.conf).ok()) co_return Unexpected(Error::kDeviceError);
  auto hs = co_await s.handshake();
  if (!hs.ok()) co_return Unexpected(hs.error());
  const std::string_view get = "GET /private HTTP/1.1\r\nHost: t\r\n\r\n";
  (void)co_await s.write(std::as_bytes(std::span(get.data(), get.size())), true);
  const std::string got = (co_await read_until(s, "\r\n")).value_or("");
  s.notify_close();
  s.finish();
  (void)tcp->close();
  co_return got.substr(0, got.find("\r\n"));
}

TEST_F(HttpsServerTest, ManagementRouteTakesAClientCertificateTheCaSigned) {
  // The CA: the owner's own self-signed certificate (Mbed TLS trusts a
  // certificate found in the trusted list as it is).
  static tls::testing::TestIdentity owner = tls::testing::make_test_identity();
  static tls::testing::TestIdentity stranger = tls::testing::make_test_identity();
  ASSERT_FALSE(owner.cert_pem.empty());
  ASSERT_FALSE(stranger.cert_pem.empty());
  tls::ServerContext context;
  ASSERT_TRUE(context.init(identity_.cert(), identity_.key(), owner.cert()).ok())
      << context.reason();
  EXPECT_TRUE(context.verifies_clients());
  EXPECT_FALSE(context_.verifies_clients());
  const ServerStats before = server_stats();
  auto client = []() -> Task<void> {
    const auto mine = co_await tls_private(&owner);
    CHECK_OR_FAIL(mine.ok() && *mine == "HTTP/1.1 200 OK");
    const auto theirs = co_await tls_private(&stranger);
    CHECK_OR_FAIL(theirs.ok() && *theirs == "HTTP/1.1 403 Forbidden");
    const auto none = co_await tls_private(nullptr);
    CHECK_OR_FAIL(none.ok() && *none == "HTTP/1.1 401 Unauthorized");
    co_return {};
  };
  run_with(ServerConfig{}, client(), &context);
  const ServerStats& after = server_stats();
  EXPECT_EQ(after.management_admitted - before.management_admitted, 1u);
  EXPECT_EQ(after.management_forbidden - before.management_forbidden, 1u);
  EXPECT_EQ(after.management_unauthorized - before.management_unauthorized, 1u);
}

}  // namespace
}  // namespace starling::net::http
