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

constexpr Route kRoutes[] = {{.path = "/hello", .handler = hello}};
const Router kRouter(kRoutes);

// The client's side: no certificate check (the test's certificate is
// self-signed; the server's chain is not what is tested here).
struct Client {
  Client() {
    mbedtls_ssl_config_init(&conf);
    EXPECT_EQ(mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT,
                                          MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT),
              0);
    mbedtls_ssl_conf_rng(&conf, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
    mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
  }
  ~Client() { mbedtls_ssl_config_free(&conf); }
  mbedtls_ssl_config conf;
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

  // Runs `client` against a server with `config` (TLS on g_port + 1).
  void run_with(ServerConfig config, Task<void> client) {
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
    config.tls = &context_;  // a tls::Server
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
    }
    s.notify_close();
    s.finish();
    co_return tcp->close();
  };
  run_with(ServerConfig{}, client());
  // Both ends count: the client's TlsStream is in this process too.
  EXPECT_EQ(tls::tls_stats().handshakes, handshakes + 2);
}

TEST_F(HttpsServerTest, PlainPortRedirectsToHttps) {
  auto client = []() -> Task<void> {
    auto tcp = co_await TcpStream::connect(kServer(g_port));
    if (!tcp) co_return Unexpected(tcp.error());
    const std::string_view get = "GET /hello?x=1 HTTP/1.1\r\nHost: box.example:80\r\n\r\n";
    (void)co_await tcp->write(std::as_bytes(std::span(get.data(), get.size())));
    std::string got;
    char buf[1024];
    while (got.find("\r\n\r\n") == std::string::npos) {
      auto n = co_await async::with_timeout(
          tcp->read(std::as_writable_bytes(std::span(buf, sizeof buf))), 2000 * kMillisecond);
      if (!n || *n == 0) break;
      got.append(buf, *n);
    }
    CHECK_OR_FAIL(got.starts_with("HTTP/1.1 308 Permanent Redirect\r\n"));
    const std::string location =
        "\r\nLocation: https://box.example:" + std::to_string(g_port + 1) + "/hello?x=1\r\n";
    CHECK_OR_FAIL(got.find(location) != std::string::npos);
    CHECK_OR_FAIL(got.find("Strict-Transport-Security") == std::string::npos);
    co_return tcp->close();
  };
  const std::uint64_t redirects = server_stats().redirects;
  run_with(ServerConfig{.plain_redirects = true}, client());
  EXPECT_EQ(server_stats().redirects, redirects + 1);
}

TEST_F(HttpsServerTest, PlainTextOnTheTlsPortIsRefusedAndCounted) {
  const tls::TlsStats before = tls::tls_stats();
  auto client = []() -> Task<void> {
    auto tcp = co_await TcpStream::connect(kServer(static_cast<std::uint16_t>(g_port + 1)));
    if (!tcp) co_return Unexpected(tcp.error());
    const std::string_view get = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
    (void)co_await tcp->write(std::as_bytes(std::span(get.data(), get.size())));
    char buf[256];
    bool ended = false;
    for (int i = 0; i < 20 && !ended; ++i) {
      auto n = co_await async::with_timeout(
          tcp->read(std::as_writable_bytes(std::span(buf, sizeof buf))), 500 * kMillisecond);
      ended = !n.ok() ? n.error() != Error::kTimedOut : *n == 0;
    }
    CHECK_OR_FAIL(ended);
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
}

}  // namespace
}  // namespace starling::net::http
