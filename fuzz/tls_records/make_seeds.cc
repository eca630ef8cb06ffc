// Writes the tls_records fuzzer's seeds (tls_records_fuzzer.cc says what an
// input is): real handshake messages from an Mbed TLS client talking to a
// server set up by tls::ServerContext, as the fuzzer's is, over an
// in-memory wire; and operations on an established session. Run once, and
// again whenever the input format or the server's configuration changes:
//
//   bazel run //fuzz/tls_records:make_seeds -- $PWD/fuzz/tls_records/corpus
//   fuzz/tls_records/openssl_seeds.sh fuzz/tls_records/corpus
//
// (the second adds ClientHellos from `openssl s_client`). Keys and randoms
// differ at each run, so the files do too; only their shape matters.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "mbedtls/ssl.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/memory_wire.h"
#include "net/tls/test_identity.h"
#include "net/tls/tls.h"

// psa_util.h declares mbedtls_psa_get_random without C linkage for C++.
extern "C" {
#include "mbedtls/psa_util.h"
}

namespace {

namespace tls = starling::net::tls;
using Bytes = std::vector<unsigned char>;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "make_seeds: %s\n", what);
  std::exit(1);
}

void require(bool condition, const char* what) {
  if (!condition) fail(what);
}

using tls::testing::End;
using tls::testing::Pipe;
using tls::testing::wire_recv;
using tls::testing::wire_send;

// A client: no certificate check, versions [min, max], its own
// certificate if given one.
struct Client {
  Client(mbedtls_ssl_protocol_version min, mbedtls_ssl_protocol_version max,
         const tls::testing::TestIdentity* identity = nullptr) {
    mbedtls_ssl_config_init(&conf);
    mbedtls_x509_crt_init(&crt);
    mbedtls_pk_init(&key);
    require(mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                        MBEDTLS_SSL_PRESET_DEFAULT) == 0,
            "client configuration");
    mbedtls_ssl_conf_rng(&conf, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
    mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
    mbedtls_ssl_conf_min_tls_version(&conf, min);
    mbedtls_ssl_conf_max_tls_version(&conf, max);
    require(mbedtls_ssl_conf_alpn_protocols(&conf, alpn) == 0, "client ALPN");
    // Keep TLS 1.3's tickets (Mbed TLS drops them by default), to offer one.
    mbedtls_ssl_conf_tls13_enable_signal_new_session_tickets(
        &conf, MBEDTLS_SSL_TLS1_3_SIGNAL_NEW_SESSION_TICKETS_ENABLED);
    if (identity != nullptr) {
      const std::string& c = identity->cert_pem;
      const std::string& k = identity->key_pem;
      require(mbedtls_x509_crt_parse(&crt, reinterpret_cast<const unsigned char*>(c.c_str()),
                                     c.size() + 1) == 0,
              "client certificate");
      require(mbedtls_pk_parse_key(&key, reinterpret_cast<const unsigned char*>(k.c_str()),
                                   k.size() + 1, nullptr, 0, mbedtls_psa_get_random,
                                   MBEDTLS_PSA_RANDOM_STATE) == 0,
              "client key");
      require(mbedtls_ssl_conf_own_cert(&conf, &crt, &key) == 0, "client identity");
    }
  }
  ~Client() {
    mbedtls_pk_free(&key);
    mbedtls_x509_crt_free(&crt);
    mbedtls_ssl_config_free(&conf);
  }
  const char* alpn[2] = {"http/1.1", nullptr};
  mbedtls_ssl_config conf;
  mbedtls_x509_crt crt;
  mbedtls_pk_context key;
};

enum class Stop { kAfterHello, kAfterHandshake };

// What the client sends: its first flight only, or everything up to the
// end of a handshake (then, for TLS 1.3, it reads the ticket the server
// sent, and `save` gets the session for resumption).
Bytes client_bytes(const tls::ServerContext& server, Client& client, Stop stop,
                   const mbedtls_ssl_session* resume = nullptr,
                   mbedtls_ssl_session* save = nullptr) {
  Pipe to_server;
  Pipe to_client;
  End server_end{&to_server, &to_client};
  End client_end{&to_client, &to_server};
  mbedtls_ssl_context s;
  mbedtls_ssl_context c;
  mbedtls_ssl_init(&s);
  mbedtls_ssl_init(&c);
  require(mbedtls_ssl_setup(&s, server.config()) == 0, "server session");
  require(mbedtls_ssl_setup(&c, &client.conf) == 0, "client session");
  require(mbedtls_ssl_set_hostname(&c, "starling.test") == 0, "SNI");
  if (resume != nullptr) require(mbedtls_ssl_set_session(&c, resume) == 0, "resumption");
  mbedtls_ssl_set_bio(&s, &server_end, wire_send, wire_recv, nullptr);
  mbedtls_ssl_set_bio(&c, &client_end, wire_send, wire_recv, nullptr);
  if (stop == Stop::kAfterHello) {
    require(mbedtls_ssl_handshake(&c) == MBEDTLS_ERR_SSL_WANT_READ, "a ClientHello");
  } else {
    for (int round = 0; round < 100; ++round) {
      const int rc = mbedtls_ssl_is_handshake_over(&c) ? 0 : mbedtls_ssl_handshake(&c);
      const int rs = mbedtls_ssl_is_handshake_over(&s) ? 0 : mbedtls_ssl_handshake(&s);
      require(rc == 0 || rc == MBEDTLS_ERR_SSL_WANT_READ, "the client's handshake");
      require(rs == 0 || rs == MBEDTLS_ERR_SSL_WANT_READ, "the server's handshake");
      if (rc == 0 && rs == 0) break;
    }
    require(mbedtls_ssl_is_handshake_over(&c) && mbedtls_ssl_is_handshake_over(&s),
            "a handshake to its end");
    // TLS 1.3's ticket comes after the handshake: the client's first read
    // takes the message, the second the ticket in it.
    unsigned char sink[64];
    for (int i = 0; i < 2; ++i) {
      const int r = mbedtls_ssl_read(&c, sink, sizeof sink);
      require(r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET,
              "nothing but a ticket after the handshake");
    }
    if (save != nullptr) require(mbedtls_ssl_get_session(&c, save) == 0, "a session to resume");
  }
  mbedtls_ssl_free(&c);
  mbedtls_ssl_free(&s);
  return to_server.bytes;
}

// The fuzzer's header: flags (mode, end, read size, try_write), then the
// sizes of the raw peer's writes.
Bytes header(std::uint8_t flags, std::uint8_t a = 0, std::uint8_t b = 0, std::uint8_t c = 0) {
  return {flags, a, b, c};
}

Bytes operator+(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The fuzzer's operations after a handshake.
Bytes app_data(std::size_t n) {
  return {static_cast<unsigned char>((n >> 8) << 2 | 1), static_cast<unsigned char>(n & 0xff)};
}
Bytes raw(const Bytes& bytes) {
  const std::size_t n = bytes.size();
  return Bytes{static_cast<unsigned char>((n >> 8) << 2), static_cast<unsigned char>(n & 0xff)} +
         bytes;
}
const Bytes kCloseNotify = {2, 0};
const Bytes kWait = {3, 0};

// Flags: mode | end << 2 | read size index << 4 | try_write << 7.
constexpr std::uint8_t kRaw = 0;
constexpr std::uint8_t kRawAsking = 1;
constexpr std::uint8_t kAfterTls12 = 2;
constexpr std::uint8_t kAfterTls13 = 3;
constexpr std::uint8_t kReset = 1 << 2;
constexpr std::uint8_t kSilent = 2 << 2;
constexpr std::uint8_t kClose = 3 << 2;
constexpr std::uint8_t reads(std::uint8_t index) {
  return static_cast<std::uint8_t>(index << 4);
}
constexpr std::uint8_t kTryWrite = 0x80;

void write_seed(const std::string& dir, const char* name, const Bytes& bytes) {
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  require(f != nullptr, "cannot create a seed file");
  require(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size(), "cannot write a seed");
  std::fclose(f);
  std::printf("%s: %zu bytes\n", path.c_str(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) fail("usage: make_seeds DIRECTORY");
  const std::string dir = argv[1];
  require(tls::init_mbedtls().ok(), "Mbed TLS (entropy)");
  const auto server_identity = tls::testing::make_test_identity();
  const auto client_identity = tls::testing::make_test_identity();
  require(!server_identity.cert_pem.empty() && !client_identity.cert_pem.empty(), "identities");
  tls::ServerContext plain;
  tls::ServerContext asking;
  require(plain.init(server_identity.cert(), server_identity.key()).ok(), "server context");
  require(asking.init(server_identity.cert(), server_identity.key(), server_identity.cert()).ok(),
          "server context with a client CA");

  Client any(MBEDTLS_SSL_VERSION_TLS1_2, MBEDTLS_SSL_VERSION_TLS1_3);
  Client tls12(MBEDTLS_SSL_VERSION_TLS1_2, MBEDTLS_SSL_VERSION_TLS1_2);
  Client tls12_with_cert(MBEDTLS_SSL_VERSION_TLS1_2, MBEDTLS_SSL_VERSION_TLS1_2, &client_identity);

  const Bytes hello13 = client_bytes(plain, any, Stop::kAfterHello);
  const Bytes hello12 = client_bytes(plain, tls12, Stop::kAfterHello);
  mbedtls_ssl_session session13;
  mbedtls_ssl_session session12;
  mbedtls_ssl_session_init(&session13);
  mbedtls_ssl_session_init(&session12);
  const Bytes flight13 = client_bytes(plain, any, Stop::kAfterHandshake, nullptr, &session13);
  const Bytes flight12 = client_bytes(plain, tls12, Stop::kAfterHandshake, nullptr, &session12);
  const Bytes flight12_cert = client_bytes(asking, tls12_with_cert, Stop::kAfterHandshake);
  // ClientHellos that offer a ticket: TLS 1.3's pre_shared_key with its
  // binder, TLS 1.2's SessionTicket extension.
  const Bytes resume13 = client_bytes(plain, any, Stop::kAfterHello, &session13);
  const Bytes resume12 = client_bytes(plain, tls12, Stop::kAfterHello, &session12);
  mbedtls_ssl_session_free(&session13);
  mbedtls_ssl_session_free(&session12);

  // Raw peers: real messages, whole or in pieces, leaving in each way.
  write_seed(dir, "tls13_client_hello", header(kRaw) + hello13);
  write_seed(dir, "tls12_client_hello", header(kRaw) + hello12);
  write_seed(dir, "tls13_client_flight", header(kRaw) + flight13);
  write_seed(dir, "tls12_client_flight", header(kRaw) + flight12);
  write_seed(dir, "tls12_client_flight_certificate", header(kRawAsking) + flight12_cert);
  write_seed(dir, "tls13_resumption_hello", header(kRaw | kClose) + resume13);
  write_seed(dir, "tls12_ticket_hello", header(kRaw | kReset) + resume12);
  write_seed(dir, "tls13_hello_dribbled", header(kRaw, 1, 5, 3) + hello13);
  // The same flight with its certificate's signature algorithm unknown:
  // Mbed TLS skips such a certificate and keeps an all-zero one in its
  // place (tls_records_fuzzer.cc's --wrap stand-in says what follows).
  Bytes unknown_algorithm = flight12_cert;
  const unsigned char ecdsa_sha256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02};
  const auto oid = std::search(unknown_algorithm.begin(), unknown_algorithm.end(),
                               std::begin(ecdsa_sha256), std::end(ecdsa_sha256));
  require(oid != unknown_algorithm.end(), "the client certificate's signature algorithm");
  oid[sizeof ecdsa_sha256 - 1] = 0x7f;
  write_seed(dir, "tls12_client_flight_unknown_signature_algorithm",
             header(kRawAsking) + unknown_algorithm);
  // A fatal alert (handshake_failure) after the hello, and one alone; a
  // record longer than TLS allows.
  const Bytes alert = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28};
  write_seed(dir, "tls12_hello_then_alert", header(kRaw) + hello12 + alert);
  write_seed(dir, "alert_only", header(kRaw | kReset) + alert);
  write_seed(dir, "oversized_record",
             header(kRaw, 5, 0, 0) + Bytes{0x16, 0x03, 0x03, 0x48, 0x01} + Bytes(64, 0));
  write_seed(dir, "tls13_hello_silent", header(kRawAsking | kSilent, 9, 0, 0) + hello13);

  // Sessions a real client established, then records good and bad.
  write_seed(dir, "tls13_echo",
             header(kAfterTls13 | reads(3)) + app_data(100) + kWait + app_data(3000) + app_data(1));
  write_seed(dir, "tls12_echo_small_reads_try_write",
             header(kAfterTls12 | reads(1) | kTryWrite) + app_data(500) + kWait + app_data(20));
  write_seed(dir, "tls13_forged_record",
             header(kAfterTls13 | reads(4) | kTryWrite) + app_data(50) + kWait +
                 raw(Bytes{0x17, 0x03, 0x03, 0x00, 0x20} + Bytes(32, 0xa5)));
  write_seed(dir, "tls12_close_notify_then_data",
             header(kAfterTls12 | reads(6)) + app_data(20) + kCloseNotify + app_data(10));
  write_seed(dir, "tls13_plaintext_alert_silent",
             header(kAfterTls13 | kSilent | reads(2)) + app_data(10) + kWait +
                 raw({0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28}));
  write_seed(dir, "tls12_truncated_record_reset",
             header(kAfterTls12 | kReset | reads(5)) + app_data(4000) + raw({0x17, 0x03, 0x03}));
  return 0;
}
