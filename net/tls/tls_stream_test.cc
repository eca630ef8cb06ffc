// Host test: TlsStream's writes over lwIP's loopback (net/tcp/tests), a
// server stream and a client stream in one process, under ASan/UBSan.
// Short pieces share one record; a record Mbed TLS holds half-sent, when
// the peer stops reading, is finished and counted once however the caller
// hands the rest back (piece by piece, as the HTTP server's send_rest
// does, or joined).
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "mbedtls/ssl.h"
#include "net/tcp/tests/tcp_harness.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/test_identity.h"
#include "net/tls/tls.h"

extern "C" {
#include "mbedtls/psa_util.h"
}

namespace starling::net::tls {
namespace {

using async::kMillisecond;
using async::Task;
using net::testing::kServer;

std::uint16_t g_port = 9440;

// A TLS 1.3 record of `n` bytes on the wire: the 5-byte header, the
// plaintext and its inner content type padded to Mbed TLS's granularity,
// the 16-byte tag.
constexpr std::size_t record_bytes(std::size_t n) {
  constexpr std::size_t kPad = MBEDTLS_SSL_CID_TLS1_3_PADDING_GRANULARITY;
  return 5 + (n + 1 + kPad - 1) / kPad * kPad + 16;
}

// Bytes 0, 1, 2... (mod 251), so a byte sent twice or lost shows.
std::vector<std::byte> pattern(std::size_t n, std::size_t from = 0) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((from + i) % 251);
  return v;
}

// Until `tcp` holds `n` unread bytes (or 2 s passed), then 5 ms more for
// any that should not come.
Task<void> arrived(TcpStream& tcp, std::size_t n) {
  for (int i = 0; i < 2000 && tcp.readable() < n; ++i) co_await async::sleep_for(kMillisecond);
  co_await async::sleep_for(5 * kMillisecond);
  co_return {};
}

class TlsStreamTest : public net::testing::TcpTest {
 protected:
  static void SetUpTestSuite() { ASSERT_TRUE(init_mbedtls().ok()); }
  void SetUp() override {
    identity_ = testing::make_test_identity();
    ASSERT_FALSE(identity_.cert_pem.empty());
    ASSERT_TRUE(server_.init(identity_.cert(), identity_.key()).ok()) << server_.reason();
    mbedtls_ssl_config_init(&client_);
    ASSERT_EQ(mbedtls_ssl_config_defaults(&client_, MBEDTLS_SSL_IS_CLIENT,
                                          MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT),
              0);
    mbedtls_ssl_conf_rng(&client_, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
    // The test's certificate is self-signed; the chain is not what is
    // tested here.
    mbedtls_ssl_conf_authmode(&client_, MBEDTLS_SSL_VERIFY_NONE);
  }
  void TearDown() override {
    TcpTest::TearDown();
    mbedtls_ssl_config_free(&client_);
    EXPECT_EQ(tls_stats().sessions_in_use, 0u) << "a TLS session leaked";
  }

  // Connects a client to a server over loopback, both through TLS, and
  // runs `body(server, client, client_tcp)` once both handshakes are done.
  template <typename Body>
  void run_pair(Body body) {
    auto outer = [](mbedtls_ssl_config* client_config, const mbedtls_ssl_config* server_config,
                    Body body) -> Task<void> {
      const std::uint16_t port = ++g_port;
      auto listener = TcpListener::listen(port, 1);
      if (!listener.ok()) co_return Unexpected(listener.error());
      auto client_tcp = co_await TcpStream::connect(kServer(port));
      if (!client_tcp.ok()) co_return Unexpected(client_tcp.error());
      auto server_tcp = co_await listener->accept();
      if (!server_tcp.ok()) co_return Unexpected(server_tcp.error());
      TlsStream server;
      TlsStream client;
      if (!server.start(*server_tcp, server_config).ok()) co_return Unexpected(Error::kNoMemory);
      if (!client.start(*client_tcp, client_config).ok()) co_return Unexpected(Error::kNoMemory);
      {
        async::Scope both;
        (void)both.spawn(server.handshake());
        (void)both.spawn(client.handshake());
        auto done = co_await async::with_timeout(both.join(), 5000 * kMillisecond);
        if (!done.ok()) co_return Unexpected(done.error());
      }
      // The server's NewSessionTicket, which the client reads with its
      // first read.
      (void)co_await arrived(*client_tcp, 1);
      Result<void> r = co_await body(server, client, *client_tcp);
      server.finish();
      client.finish();
      server_tcp->abort();
      client_tcp->abort();
      co_return r;
    };
    Result<void> r = run(outer(&client_, server_.config(), std::move(body)));
    if (!r.ok()) ADD_FAILURE() << "the exchange failed: " << error_name(r.error());
  }

  testing::TestIdentity identity_;
  ServerContext server_;
  mbedtls_ssl_config client_;
};

// Reads through `client` into `got` until `n` bytes came (or 2 s of
// nothing).
Task<void> read_bytes(TlsStream& client, std::size_t n, std::vector<std::byte>& got) {
  std::byte buf[4096];
  while (got.size() < n) {
    auto r = co_await async::with_timeout(client.read(buf), 2000 * kMillisecond);
    if (!r.ok()) co_return Unexpected(r.error());
    if (*r == 0) break;
    got.insert(got.end(), buf, buf + *r);
  }
  co_return {};
}

TEST_F(TlsStreamTest, ShortPiecesShareOneRecord) {
  run_pair([](TlsStream& server, TlsStream& client, TcpStream& client_tcp) -> Task<void> {
    const auto data = pattern(600);
    const std::span<const std::byte> pieces[] = {std::span(data).first(150),
                                                 std::span(data).subspan(150)};
    // The client has not read the server's NewSessionTicket yet.
    const std::size_t before = client_tcp.readable();
    auto taken = server.try_write(pieces, true);
    EXPECT_TRUE(taken.ok());
    EXPECT_EQ(taken.value_or(0), data.size());
    // On the wire: one record's header, type and tag, not two.
    (void)co_await arrived(client_tcp, before + record_bytes(data.size()));
    EXPECT_EQ(client_tcp.readable() - before, record_bytes(data.size()));
    std::vector<std::byte> got;
    auto r = co_await read_bytes(client, data.size(), got);
    EXPECT_EQ(got, data);
    co_return r;
  });
}

TEST_F(TlsStreamTest, LongFirstPieceIsItsOwnRecord) {
  run_pair([](TlsStream& server, TlsStream& client, TcpStream& client_tcp) -> Task<void> {
    // Past the join limit the first piece goes out without a copy.
    const auto data = pattern(2500);
    const std::span<const std::byte> pieces[] = {std::span(data).first(2400),
                                                 std::span(data).subspan(2400)};
    const std::size_t before = client_tcp.readable();
    auto taken = server.try_write(pieces, true);
    EXPECT_EQ(taken.value_or(0), data.size());
    (void)co_await arrived(client_tcp, before + record_bytes(2400) + record_bytes(100));
    EXPECT_EQ(client_tcp.readable() - before, record_bytes(2400) + record_bytes(100));
    std::vector<std::byte> got;
    auto r = co_await read_bytes(client, data.size(), got);
    EXPECT_EQ(got, data);
    co_return r;
  });
}

// The peer stops reading; the server offers a head and a body until a
// record is held half-sent; then the peer reads while the server hands
// the rest back, piece by piece or `joined`. Every byte arrives once.
Task<void> held_record(TlsStream& server, TlsStream& client, bool joined) {
  std::vector<std::byte> expected;
  std::span<const std::byte> rest[2];
  std::vector<std::byte> data;
  for (int i = 0; i < 10000; ++i) {
    data = pattern(700, expected.size());
    const std::span<const std::byte> pieces[] = {std::span(data).first(200),
                                                 std::span(data).subspan(200)};
    auto taken = server.try_write(pieces, true);
    if (!taken.ok()) co_return Unexpected(taken.error());
    expected.insert(expected.end(), data.begin(), data.begin() + *taken);
    if (*taken < data.size()) {
      rest[0] = pieces[0].subspan(std::min<std::size_t>(*taken, 200));
      rest[1] = pieces[1].subspan(*taken > 200 ? *taken - 200 : 0);
      break;
    }
    co_await async::sleep_for(kMillisecond);
  }
  EXPECT_FALSE(rest[0].empty() && rest[1].empty()) << "the peer's window never filled";
  expected.insert(expected.end(), rest[0].begin(), rest[0].end());
  expected.insert(expected.end(), rest[1].begin(), rest[1].end());
  // A last write after the rest: what came twice or went missing shifts
  // it.
  const auto trailer = pattern(64, expected.size());
  expected.insert(expected.end(), trailer.begin(), trailer.end());
  std::vector<std::byte> got;
  async::Scope scope;
  (void)scope.spawn(read_bytes(client, expected.size(), got));
  if (joined) {
    std::vector<std::byte> both(rest[0].begin(), rest[0].end());
    both.insert(both.end(), rest[1].begin(), rest[1].end());
    auto w = co_await async::with_timeout(server.write(both, true), 2000 * kMillisecond);
    EXPECT_EQ(w.value_or(0), both.size());
  } else {
    for (const auto piece : rest) {
      if (piece.empty()) continue;
      auto w = co_await async::with_timeout(server.write(piece, true), 2000 * kMillisecond);
      EXPECT_EQ(w.value_or(0), piece.size());
    }
  }
  auto w = co_await async::with_timeout(server.write(trailer, true), 2000 * kMillisecond);
  EXPECT_EQ(w.value_or(0), trailer.size());
  auto read = co_await scope.join();
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected) << "bytes lost or sent twice";
  co_return read;
}

TEST_F(TlsStreamTest, HeldRecordThenTheRestPieceByPiece) {
  run_pair([](TlsStream& server, TlsStream& client, TcpStream&) -> Task<void> {
    return held_record(server, client, false);
  });
}

TEST_F(TlsStreamTest, HeldRecordThenTheRestJoined) {
  run_pair([](TlsStream& server, TlsStream& client, TcpStream&) -> Task<void> {
    return held_record(server, client, true);
  });
}

}  // namespace
}  // namespace starling::net::tls
