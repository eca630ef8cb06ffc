#ifndef STARLING_NET_TLS_TLS_H_
#define STARLING_NET_TLS_TLS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernel/async/task.h"
#include "kernel/lib/result.h"
#include "mbedtls/pk.h"
#include "mbedtls/ssl.h"
#include "mbedtls/ssl_ticket.h"
#include "mbedtls/x509_crt.h"
#include "net/tcp/tcp.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/session.h"

// TLS as a coroutine stream over net::TcpStream (docs/tls.md), not lwIP's
// altcp layer: the HTTP server (and any app) reads and writes a TlsStream
// as it does a TcpStream, and Mbed TLS never waits. Its I/O callbacks take
// what lwIP already holds (TcpStream::try_read / try_write) or say
// WANT_READ / WANT_WRITE; the stream then waits on the TCP stream
// (wait_readable / wait_writable) and calls Mbed TLS again.
//
//   static tls::ServerContext context;          // once: certificate, key, tickets
//   context.init(cert_pem, key_pem);
//   Session* s = *context.open(slot, tcp);      // per connection: Mbed TLS's state, buffers
//   co_await with_timeout(s->handshake(), 10 * kSecond);
//   co_await s->read(buf); co_await s->write(bytes, true);
//   context.close(s);                           // frees them (the TCP stream is the caller's)
// The HTTP server sees only session.h's interfaces.
//
// Memory per connection: the mbedtls_ssl_context inside TlsStream (the
// caller's storage: .bss for httpd's slots), and from Mbed TLS's bounded
// allocator (net/tls/mbedtls_port.h) a 16 KiB input and a 4 KiB output
// record buffer plus handshake state while the handshake runs. Measured
// figures: docs/tls.md.
namespace starling::net::tls {

// Why connections failed, for the metrics (net/tls/tls_metrics.h).
struct TlsStats {
  std::uint64_t handshakes = 0;       // completed
  std::uint64_t resumed = 0;          // ... of them by a session ticket
  std::uint64_t alerts_sent = 0;      // we refused the peer (bad hello, no common suite...)
  std::uint64_t alerts_received = 0;  // the peer sent a fatal alert
  std::uint64_t bad_records = 0;      // undecryptable, malformed or unexpected records
  std::uint64_t no_memory = 0;        // the TLS memory budget or a buffer was short
  std::uint64_t closed_early = 0;     // the peer closed or reset during the handshake
  std::uint64_t timeouts = 0;         // the handshake outlived its deadline (the server's)
  std::uint64_t tls13 = 0;            // handshakes by version
  std::uint64_t tls12 = 0;
  std::uint64_t sessions_in_use = 0;  // started and not finished
};
const TlsStats& tls_stats() noexcept;
TlsStats& tls_stats_for_update() noexcept;

class TlsStream final : public Session {
 public:
  TlsStream() noexcept;
  ~TlsStream();  // finish()
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // Binds to `tcp` (which must outlive the session) and sets up Mbed TLS's
  // state for `config` (a ServerContext's, or a client's in tests),
  // allocating its record buffers: kNoMemory past the TLS budget.
  // verify_peer: the config asks for a client certificate, and
  // peer_certificate() reports on it.
  Result<void> start(TcpStream& tcp, const mbedtls_ssl_config* config,
                     bool verify_peer = false) noexcept;
  // The handshake to its end. Failures are counted by kind (TlsStats) and
  // end in kDeviceError (the peer's fault or ours: the connection is
  // over), kNoMemory, or the TCP stream's error.
  async::Task<void> handshake() noexcept override;
  // Decrypted bytes, at least one (waits); 0 at the peer's close_notify or
  // the TCP stream's end.
  async::Task<std::size_t> read(std::span<std::byte> buf) noexcept override;
  // Encrypts and sends all of `data` (records of up to 4 KiB), waiting for
  // room as needed; `push`: the TCP segments get PSH at the end.
  async::Task<std::size_t> write(std::span<const std::byte> data, bool push) noexcept override;
  // Without waiting: encrypts and sends as much of `pieces` (in order) as
  // lwIP takes now; the bytes taken. Short pieces share a record (up to
  // kCoalesceBytes of them, copied together): a response's head and body
  // go as one. A record Mbed TLS could only partly send stays with it, its
  // bytes not counted as taken; the next write or try_write is given the
  // rest of the data, in any pieces, and finishes that record first.
  Result<std::size_t> try_write(std::span<const std::span<const std::byte>> pieces,
                                bool push) noexcept override;
  // Sends close_notify (best effort: whatever fits now).
  void notify_close() noexcept override;
  void handshake_timed_out() noexcept override;
  PeerCertificate peer_certificate() const noexcept override;
  bool refused_peer() const noexcept override { return refused_peer_; }
  // Frees Mbed TLS's state and buffers. Idempotent.
  void finish() noexcept;
  bool started() const noexcept { return tcp_ != nullptr; }
  // The negotiated version (MBEDTLS_SSL_VERSION_TLS1_3 / _TLS1_2), after
  // the handshake.
  int version() const noexcept;

 private:
  // Where a write stands in its pieces: pieces[index] from `offset` on,
  // then the pieces after it; never at an empty piece while bytes remain.
  class Cursor {
   public:
    explicit Cursor(std::span<const std::span<const std::byte>> pieces) noexcept : pieces_(pieces) {
      skip_empty();
    }
    std::span<const std::byte> front() const noexcept { return pieces_[index_].subspan(offset_); }
    // Past `n` bytes (no more than remain).
    void advance(std::size_t n) noexcept {
      while (n != 0) {
        const std::size_t here = pieces_[index_].size() - offset_;
        const std::size_t step = n < here ? n : here;
        offset_ += step;
        n -= step;
        skip_empty();
      }
    }

   private:
    void skip_empty() noexcept {
      while (index_ < pieces_.size() && offset_ == pieces_[index_].size()) {
        ++index_;
        offset_ = 0;
      }
    }
    std::span<const std::span<const std::byte>> pieces_;
    std::size_t index_ = 0;
    std::size_t offset_ = 0;
  };
  // The most bytes of short pieces copied together into one record:
  // send_step()'s stack, under the 4 KiB guard page.
  static constexpr std::size_t kCoalesceBytes = 2048;

  // One step of sending the `left` bytes from `at` (> 0): the bytes
  // consumed, or Mbed TLS's error (WANT_WRITE: wait for room and step
  // again with the same bytes in front). tls.cc says how.
  int send_step(const Cursor& at, std::size_t left, bool push) noexcept;
  static int bio_send(void* self, const unsigned char* buf, std::size_t len);
  static int bio_recv(void* self, unsigned char* buf, std::size_t len);
  // What an Mbed TLS error means for the stream: counted, mapped.
  Error failure(int mbedtls_error) noexcept;

  mbedtls_ssl_context ssl_;
  TcpStream* tcp_ = nullptr;
  bool push_ = true;  // the next bio_send's TCP push
  // The caller's bytes in a record Mbed TLS holds unsent (WANT_WRITE):
  // not yet counted as taken.
  std::size_t held_ = 0;
  // The caller's next bytes, sent in a held record since finished: counted
  // as taken when handed in again, not sent twice.
  std::size_t sent_ahead_ = 0;
  bool handshaking_ = false;
  bool refused_peer_ = false;  // failure() counted alerts_sent or bad_records
  bool verify_peer_ = false;
  Error tcp_error_ = Error::kDeviceError;  // what bio_send/bio_recv met
};

// The server's side of every connection: its certificate chain and key, the
// versions and suites (mbedtls_config.h), ALPN http/1.1, session tickets
// under a key made at init and rotated by Mbed TLS. One per server, alive
// while any TlsStream uses it.
class ServerContext final : public Server {
 public:
  ServerContext() noexcept;
  ~ServerContext();
  ServerContext(const ServerContext&) = delete;
  ServerContext& operator=(const ServerContext&) = delete;

  // `cert_pem`: the server's certificate then any intermediates, PEM (or
  // one DER certificate); `key_pem`: its private key, PEM or DER, not
  // encrypted. kInvalidArgument with reason() set: unreadable certificate
  // or key, or a key that is not the certificate's; kUnsupported: the
  // board has no entropy (init_mbedtls()'s error). `client_ca_pem` (may
  // be empty): the CA whose certificates clients may show (asked for, not
  // required; Session::peer_certificate() says what came).
  Result<void> init(std::span<const std::byte> cert_pem, std::span<const std::byte> key_pem,
                    std::span<const std::byte> client_ca_pem = {});
  // Why init() refused, for the console ("certificate: ...").
  std::string_view reason() const noexcept { return reason_; }
  // Whether init() refused for want of the board's entropy (not for the
  // files): the metrics page's starling_tls_state tells the two apart.
  bool refused_for_entropy() const noexcept { return no_entropy_; }
  bool ready() const noexcept { return ready_; }
  const mbedtls_ssl_config* config() const noexcept { return &config_; }
  // SHA-256 of the certificate's DER, for the console and the runner's
  // "fingerprint" line.
  std::span<const std::uint8_t, 32> fingerprint() const noexcept { return fingerprint_; }

  // Server: session `slot` (< kMaxSessions) started over `tcp`.
  Result<Session*> open(std::size_t slot, TcpStream& tcp) noexcept override;
  void close(Session* session) noexcept override;
  bool verifies_clients() const noexcept override { return verifies_clients_; }

 private:
  mbedtls_ssl_config config_;
  mbedtls_x509_crt chain_;
  mbedtls_x509_crt client_ca_;
  mbedtls_pk_context key_;
  mbedtls_ssl_ticket_context tickets_;
  std::uint8_t fingerprint_[32] = {};
  std::string_view reason_;
  bool ready_ = false;
  bool no_entropy_ = false;
  bool verifies_clients_ = false;
  TlsStream sessions_[kMaxSessions];
};

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_TLS_H_
