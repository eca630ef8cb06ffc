#include "net/tls/tls.h"

#include <cstring>
#include <new>

#include "kernel/async/yield.h"
#include "mbedtls/platform.h"
// psa_util.h declares mbedtls_psa_get_random without C linkage for C++.
extern "C" {
#include "mbedtls/psa_util.h"
}
#include "mbedtls/sha256.h"
#include "net/tls/certificate_dates.h"
#include "net/tls/mbedtls_port.h"

namespace starling::net::tls {
namespace {

constinit TlsStats g_stats{};

// What bio_send/bio_recv return when the TCP stream failed: Mbed TLS
// passes any negative value through (these are its net_sockets codes).
constexpr int kBioSendFailed = -0x004E;
constexpr int kBioRecvFailed = -0x004C;

// Session tickets live a day; Mbed TLS rotates the key at that period.
constexpr std::uint32_t kTicketLifetimeSeconds = 24 * 60 * 60;

const char* const kAlpn[] = {"http/1.1", nullptr};

// The ticket parser, counting the tickets that resumed a session.
int parse_ticket(void* tickets, mbedtls_ssl_session* session, unsigned char* buf, std::size_t len) {
  const int r = mbedtls_ssl_ticket_parse(tickets, session, buf, len);
  if (r == 0) ++g_stats.resumed;
  return r;
}

// A copy of `text` with the terminating NUL Mbed TLS's PEM parser wants
// (it takes the NUL as part of the length). Mbed TLS's allocator: the
// budget covers it, init() frees it.
unsigned char* terminated_copy(std::span<const std::byte> text) {
  auto* copy = static_cast<unsigned char*>(mbedtls_calloc(1, text.size() + 1));
  if (copy != nullptr && !text.empty()) std::memcpy(copy, text.data(), text.size());
  return copy;
}

bool looks_pem(std::span<const std::byte> text) {
  static constexpr std::string_view kBegin = "-----BEGIN";
  const std::string_view s(reinterpret_cast<const char*>(text.data()), text.size());
  return s.find(kBegin) != std::string_view::npos;
}

// Certificates into `chain`, PEM (any number) or one DER: Mbed TLS's
// result (> 0: that many in a PEM bundle could not be read).
int parse_certificates(mbedtls_x509_crt* chain, std::span<const std::byte> text) {
  if (!looks_pem(text)) {
    return mbedtls_x509_crt_parse_der(chain, reinterpret_cast<const unsigned char*>(text.data()),
                                      text.size());
  }
  unsigned char* copy = terminated_copy(text);
  const int r = copy == nullptr ? MBEDTLS_ERR_X509_ALLOC_FAILED
                                : mbedtls_x509_crt_parse(chain, copy, text.size() + 1);
  mbedtls_free(copy);
  return r;
}

}  // namespace

const TlsStats& tls_stats() noexcept {
  return g_stats;
}

TlsStats& tls_stats_for_update() noexcept {
  return g_stats;
}

// ---- ServerContext -------------------------------------------------------

ServerContext::ServerContext() noexcept {
  mbedtls_ssl_config_init(&config_);
  mbedtls_x509_crt_init(&chain_);
  mbedtls_x509_crt_init(&client_ca_);
  mbedtls_pk_init(&key_);
  mbedtls_ssl_ticket_init(&tickets_);
}

ServerContext::~ServerContext() {
  mbedtls_ssl_ticket_free(&tickets_);
  mbedtls_pk_free(&key_);
  mbedtls_x509_crt_free(&client_ca_);
  mbedtls_x509_crt_free(&chain_);
  mbedtls_ssl_config_free(&config_);
}

Result<void> ServerContext::init(std::span<const std::byte> cert_pem,
                                 std::span<const std::byte> key_pem,
                                 std::span<const std::byte> client_ca_pem) {
  ready_ = false;
  no_entropy_ = false;
  if (auto ok = init_mbedtls(); !ok.ok()) {
    reason_ = "no entropy on this board: TLS refused";
    no_entropy_ = true;
    return ok;
  }
  // PEM wants its NUL; DER is taken as given.
  const int cert_result = parse_certificates(&chain_, cert_pem);
  if (cert_result != 0) {
    reason_ = cert_result > 0 ? "certificate: some certificates in the chain could not be read"
                              : "certificate: not a readable X.509 certificate (PEM or DER)";
    return Unexpected(Error::kInvalidArgument);
  }
  const bool key_is_pem = looks_pem(key_pem);
  unsigned char* key = key_is_pem ? terminated_copy(key_pem) : nullptr;
  const int key_result =
      key_is_pem
          ? (key == nullptr
                 ? MBEDTLS_ERR_PK_ALLOC_FAILED
                 : mbedtls_pk_parse_key(&key_, key, key_pem.size() + 1, nullptr, 0,
                                        mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE))
          : mbedtls_pk_parse_key(&key_, reinterpret_cast<const unsigned char*>(key_pem.data()),
                                 key_pem.size(), nullptr, 0, mbedtls_psa_get_random,
                                 MBEDTLS_PSA_RANDOM_STATE);
  if (key != nullptr) {
    mbedtls_platform_zeroize(key, key_pem.size() + 1);  // a private key: leave no copy
    mbedtls_free(key);
  }
  if (key_result != 0) {
    reason_ = key_result == MBEDTLS_ERR_PK_PASSWORD_REQUIRED
                  ? "key: encrypted; give the key unencrypted (openssl pkey -in K -out K2)"
                  : "key: not a readable private key (PEM or DER: EC or RSA)";
    return Unexpected(Error::kInvalidArgument);
  }
  if (mbedtls_pk_check_pair(&chain_.pk, &key_, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE) !=
      0) {
    reason_ = "key: does not belong to the certificate";
    return Unexpected(Error::kInvalidArgument);
  }
  if (mbedtls_sha256(chain_.raw.p, chain_.raw.len, fingerprint_, 0) != 0) {
    reason_ = "certificate: cannot hash it";
    return Unexpected(Error::kInvalidArgument);
  }

  if (mbedtls_ssl_config_defaults(&config_, MBEDTLS_SSL_IS_SERVER, MBEDTLS_SSL_TRANSPORT_STREAM,
                                  MBEDTLS_SSL_PRESET_DEFAULT) != 0) {
    reason_ = "TLS configuration refused";
    return Unexpected(Error::kInvalidArgument);
  }
  mbedtls_ssl_conf_rng(&config_, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
  mbedtls_ssl_conf_min_tls_version(&config_, MBEDTLS_SSL_VERSION_TLS1_2);
  mbedtls_ssl_conf_max_tls_version(&config_, MBEDTLS_SSL_VERSION_TLS1_3);
  if (mbedtls_ssl_conf_own_cert(&config_, &chain_, &key_) != 0 ||
      mbedtls_ssl_conf_alpn_protocols(&config_, const_cast<const char**>(kAlpn)) != 0) {
    reason_ = "TLS configuration refused the certificate";
    return Unexpected(Error::kInvalidArgument);
  }
  if (mbedtls_ssl_ticket_setup(&tickets_, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE,
                               MBEDTLS_CIPHER_AES_256_GCM, kTicketLifetimeSeconds) != 0) {
    reason_ = "session tickets: no key";
    return Unexpected(Error::kNoMemory);
  }
  mbedtls_ssl_conf_session_tickets_cb(&config_, mbedtls_ssl_ticket_write, parse_ticket, &tickets_);
  verifies_clients_ = false;
  if (!client_ca_pem.empty()) {
    // Asked for, never required: the site stays public, and only the
    // management routes look at what the session says (net/http/management.h).
    const int ca_result = parse_certificates(&client_ca_, client_ca_pem);
    if (ca_result != 0) {
      reason_ = "client CA: not a readable X.509 certificate (PEM or DER)";
      return Unexpected(Error::kInvalidArgument);
    }
    mbedtls_ssl_conf_ca_chain(&config_, &client_ca_, nullptr);
    mbedtls_ssl_conf_authmode(&config_, MBEDTLS_SSL_VERIFY_OPTIONAL);
    // Their validity dates, once the wall clock is set (certificate_dates.h).
    mbedtls_ssl_conf_verify(&config_, verify_certificate_dates, nullptr);
    verifies_clients_ = true;
  }
  ready_ = true;
  reason_ = {};
  return {};
}

Result<Session*> ServerContext::open(std::size_t slot, TcpStream& tcp) noexcept {
  if (!ready_ || slot >= kMaxSessions) return Unexpected(Error::kInvalidArgument);
  TlsStream& session = sessions_[slot];
  if (auto ok = session.start(tcp, config(), verifies_clients_); !ok.ok()) {
    return Unexpected(ok.error());
  }
  return static_cast<Session*>(&session);
}

void ServerContext::close(Session* session) noexcept {
  if (session != nullptr) static_cast<TlsStream*>(session)->finish();
}

// ---- TlsStream -----------------------------------------------------------

TlsStream::TlsStream() noexcept {
  mbedtls_ssl_init(&ssl_);
}

TlsStream::~TlsStream() {
  finish();
}

Result<void> TlsStream::start(TcpStream& tcp, const mbedtls_ssl_config* config,
                              bool verify_peer) noexcept {
  finish();
  verify_peer_ = verify_peer;
  refused_peer_ = false;
  const int r = mbedtls_ssl_setup(&ssl_, config);
  if (r != 0) {
    ++g_stats.no_memory;
    mbedtls_ssl_free(&ssl_);
    mbedtls_ssl_init(&ssl_);
    return Unexpected(r == MBEDTLS_ERR_SSL_ALLOC_FAILED ? Error::kNoMemory : Error::kDeviceError);
  }
  mbedtls_ssl_set_bio(&ssl_, this, &bio_send, &bio_recv, nullptr);
  tcp_ = &tcp;
  push_ = true;
  held_ = 0;
  sent_ahead_ = 0;
  ++g_stats.sessions_in_use;
  return {};
}

void TlsStream::finish() noexcept {
  if (tcp_ == nullptr) return;
  mbedtls_ssl_free(&ssl_);
  mbedtls_ssl_init(&ssl_);
  tcp_ = nullptr;
  --g_stats.sessions_in_use;
}

PeerCertificate TlsStream::peer_certificate() const noexcept {
  if (!verify_peer_ || tcp_ == nullptr) return PeerCertificate::kNone;
  // A certificate in this session, and Mbed TLS's verdict on it. A TLS 1.3
  // session resumed by a ticket has no certificate (the ticket does not
  // carry it) and Mbed TLS then says verify_result 0 ("no certificate
  // used"): without the certificate test that would read as verified.
  if (mbedtls_ssl_get_peer_cert(&ssl_) == nullptr) return PeerCertificate::kNone;
  return mbedtls_ssl_get_verify_result(&ssl_) == 0 ? PeerCertificate::kVerified
                                                   : PeerCertificate::kRejected;
}

int TlsStream::version() const noexcept {
  return tcp_ == nullptr ? 0 : mbedtls_ssl_get_version_number(&ssl_);
}

int TlsStream::bio_send(void* self, const unsigned char* buf, std::size_t len) {
  auto* s = static_cast<TlsStream*>(self);
  const std::span<const std::byte> pieces[] = {
      std::span(reinterpret_cast<const std::byte*>(buf), len)};
  const auto taken = s->tcp_->try_write(pieces, s->push_);
  if (!taken.ok()) {
    s->tcp_error_ = taken.error();
    return kBioSendFailed;
  }
  if (*taken == 0) return MBEDTLS_ERR_SSL_WANT_WRITE;
  return static_cast<int>(*taken);
}

int TlsStream::bio_recv(void* self, unsigned char* buf, std::size_t len) {
  auto* s = static_cast<TlsStream*>(self);
  const auto n = s->tcp_->try_read(std::span(reinterpret_cast<std::byte*>(buf), len));
  if (!n.ok()) {
    s->tcp_error_ = n.error();
    return kBioRecvFailed;
  }
  if (*n > 0) return static_cast<int>(*n);
  return s->tcp_->at_end() ? 0 : MBEDTLS_ERR_SSL_WANT_READ;
}

Error TlsStream::failure(int r) noexcept {
  switch (r) {
    case MBEDTLS_ERR_SSL_ALLOC_FAILED:
      ++g_stats.no_memory;
      return Error::kNoMemory;
    case MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE:
      ++g_stats.alerts_received;
      return Error::kDeviceError;
    case MBEDTLS_ERR_SSL_INVALID_MAC:
    case MBEDTLS_ERR_SSL_INVALID_RECORD:
    case MBEDTLS_ERR_SSL_DECODE_ERROR:
    case MBEDTLS_ERR_SSL_UNEXPECTED_RECORD:
    case MBEDTLS_ERR_SSL_UNEXPECTED_MESSAGE:
      ++g_stats.bad_records;
      refused_peer_ = true;
      return Error::kDeviceError;
    case MBEDTLS_ERR_SSL_CONN_EOF:
      if (handshaking_) ++g_stats.closed_early;
      return Error::kDeviceError;
    case kBioSendFailed:
    case kBioRecvFailed:
      if (handshaking_) ++g_stats.closed_early;
      return tcp_error_;
    default:
      // A hello we cannot serve (no common version, suite, group or
      // signature), a bad certificate from a client, an illegal
      // parameter: Mbed TLS sent the fatal alert.
      ++g_stats.alerts_sent;
      refused_peer_ = true;
      return Error::kDeviceError;
  }
}

async::Task<void> TlsStream::handshake() noexcept {
  if (tcp_ == nullptr) co_return Unexpected(Error::kInvalidArgument);
  handshaking_ = true;
  // One step of the handshake at a time (mbedtls_ssl_handshake() is this
  // loop without the yield), and between steps every other task, timer and
  // packet gets the hart. Run in one go, a server's public-key work kept it
  // 10-14 ms under QEMU's TCG (30-35 M guest instructions), past the stall
  // detector's threshold. In steps the longest is now the signature's
  // (CertificateVerify, 1.6 M; 3.4 M for a client offering only a P-256
  // key share, whose ServerHello is then the longest: docs/tls.md).
  //
  // mbedtls_ssl_is_handshake_over() is true from the state after the
  // handshake proper, but a TLS 1.3 server still has its NewSessionTicket
  // to send then: mbedtls_ssl_handshake() finishes that tail, as a call for
  // the whole handshake did, so the ticket goes out with the handshake and
  // not with the first read or write.
  for (;;) {
    const bool stepping = !mbedtls_ssl_is_handshake_over(&ssl_);
    const int r = stepping ? mbedtls_ssl_handshake_step(&ssl_) : mbedtls_ssl_handshake(&ssl_);
    if (r == 0) {
      if (!stepping) break;
      co_await async::yield();
      continue;
    }
    if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) {
      auto waited =
          co_await (r == MBEDTLS_ERR_SSL_WANT_READ ? tcp_->wait_readable() : tcp_->wait_writable());
      if (!waited.ok()) {
        ++g_stats.closed_early;
        co_return Unexpected(waited.error());
      }
      continue;
    }
    const Error e = failure(r);
    handshaking_ = false;
    co_return Unexpected(e);
  }
  handshaking_ = false;
  ++g_stats.handshakes;
  if (mbedtls_ssl_get_version_number(&ssl_) == MBEDTLS_SSL_VERSION_TLS1_3) {
    ++g_stats.tls13;
  } else {
    ++g_stats.tls12;
  }
  co_return {};
}

async::Task<std::size_t> TlsStream::read(std::span<std::byte> buf) noexcept {
  if (tcp_ == nullptr) co_return Unexpected(Error::kInvalidArgument);
  if (buf.empty()) co_return std::size_t{0};
  for (;;) {
    // Nothing decrypted or part-read in Mbed TLS and nothing received: a
    // keep-alive connection's next request is not here yet. Wait before
    // asking Mbed TLS, whose answer is known (WANT_READ after a record
    // fetch, a bio_recv and a TCP read that find nothing: ~200
    // instructions a request), and wait by peek(), an awaiter, where
    // wait_readable() is a task (a frame made, zeroed and freed: ~260
    // more). kBusy (woken with nothing to read) falls through to Mbed
    // TLS's WANT_READ and the wait below.
    if (mbedtls_ssl_get_bytes_avail(&ssl_) == 0 && mbedtls_ssl_check_pending(&ssl_) == 0 &&
        tcp_->readable() == 0 && !tcp_->at_end()) {
      auto seen = co_await tcp_->peek();
      if (!seen.ok() && seen.error() != Error::kBusy) co_return Unexpected(seen.error());
    }
    const int r = mbedtls_ssl_read(&ssl_, reinterpret_cast<unsigned char*>(buf.data()), buf.size());
    if (r > 0) co_return static_cast<std::size_t>(r);
    if (r == 0 || r == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || r == MBEDTLS_ERR_SSL_CONN_EOF) {
      co_return std::size_t{0};
    }
    if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) {
      auto waited =
          co_await (r == MBEDTLS_ERR_SSL_WANT_READ ? tcp_->wait_readable() : tcp_->wait_writable());
      if (!waited.ok()) co_return Unexpected(waited.error());
      continue;
    }
    co_return Unexpected(failure(r));
  }
}

// send_step():
//
// A record Mbed TLS could not finish sending (WANT_WRITE) stays in its
// output buffer, already encrypted, and the caller has not been told its
// bytes were taken. Mbed TLS finishes it at the next mbedtls_ssl_write()
// and then answers with the length it is handed, without reading the
// buffer (ssl_write_real in library/ssl_msg.c): handed the held record's
// length, it answers with exactly that. Those bytes are then counted as
// taken when the caller hands them in again, in whatever pieces it likes,
// so a caller need only give back the rest of its data, as with TCP.
//
// Short pieces go out together: the first pieces (up to kCoalesceBytes,
// within a record) are copied into one buffer and sent as one record,
// where a record each cost far more than the copy (a ChaCha20 block for
// its Poly1305 key, the partly used last blocks, the AEAD set-up, a
// header, a TCP write): an HTTP response's head and body, two records
// before, one now, a keep-alive HTTPS request 47,211 -> 42,653
// instructions (//bench/http's closed loop; the copy ~340 of them).
int TlsStream::send_step(const Cursor& at, std::size_t left, bool push) noexcept {
  if (held_ != 0) {
    const int r = mbedtls_ssl_write(&ssl_, nullptr, held_);
    if (r < 0) return r;
    sent_ahead_ += held_;
    held_ = 0;
  }
  if (sent_ahead_ != 0) {
    const std::size_t n = sent_ahead_ < left ? sent_ahead_ : left;
    sent_ahead_ -= n;
    return static_cast<int>(n);
  }
  const int room = mbedtls_ssl_get_max_out_record_payload(&ssl_);
  if (room <= 0) return room < 0 ? room : MBEDTLS_ERR_SSL_INTERNAL_ERROR;
  const std::span<const std::byte> front = at.front();
  std::size_t size = left < static_cast<std::size_t>(room) ? left : static_cast<std::size_t>(room);
  const auto* data = reinterpret_cast<const unsigned char*>(front.data());
  // Not zeroed (-ftrivial-auto-var-init): only what is copied in is read,
  // and zeroing 2 KiB cost ~465 instructions a response. (Placed where
  // Mbed TLS's record plaintext sits within a word, 5 bytes in, its copy
  // into the record moved whole words, but the copy in here then did not:
  // 1,300 instructions for a 780-byte response against 1,151.)
  [[clang::uninitialized]] alignas(8) unsigned char joined[kCoalesceBytes];
  if (front.size() < size && front.size() < kCoalesceBytes) {
    if (size > kCoalesceBytes) size = kCoalesceBytes;
    Cursor c = at;
    for (std::size_t copied = 0; copied < size;) {
      const auto piece = c.front();
      const std::size_t n = piece.size() < size - copied ? piece.size() : size - copied;
      std::memcpy(joined + copied, piece.data(), n);
      copied += n;
      c.advance(n);
    }
    data = joined;
  } else if (front.size() < size) {
    size = front.size();
  }
  // PSH with the record that ends the data only.
  push_ = push && size == left;
  const int r = mbedtls_ssl_write(&ssl_, data, size);
  push_ = true;
  // Only a record it could not send makes mbedtls_ssl_write() answer
  // WANT_WRITE here: renegotiation, the other way, is not built
  // (mbedtls_config.h).
  if (r == MBEDTLS_ERR_SSL_WANT_WRITE) held_ = size;
  return r;
}

async::Task<std::size_t> TlsStream::write(std::span<const std::byte> data, bool push) noexcept {
  if (tcp_ == nullptr) co_return Unexpected(Error::kInvalidArgument);
  std::size_t done = 0;
  while (done < data.size()) {
    const std::span<const std::byte> rest[] = {data.subspan(done)};
    const int r = send_step(Cursor(rest), data.size() - done, push);
    if (r > 0) {
      done += static_cast<std::size_t>(r);
      continue;
    }
    if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) {
      auto waited = co_await (r == MBEDTLS_ERR_SSL_WANT_WRITE ? tcp_->wait_writable()
                                                              : tcp_->wait_readable());
      if (!waited.ok()) co_return Unexpected(waited.error());
      continue;
    }
    co_return Unexpected(failure(r));
  }
  co_return done;
}

Result<std::size_t> TlsStream::try_write(std::span<const std::span<const std::byte>> pieces,
                                         bool push) noexcept {
  if (tcp_ == nullptr) return Unexpected(Error::kInvalidArgument);
  std::size_t left = 0;
  for (const auto& piece : pieces) left += piece.size();
  std::size_t done = 0;
  for (Cursor at(pieces); left != 0;) {
    const int r = send_step(at, left, push);
    if (r == MBEDTLS_ERR_SSL_WANT_WRITE || r == MBEDTLS_ERR_SSL_WANT_READ) break;
    if (r < 0) return Unexpected(failure(r));
    const auto n = static_cast<std::size_t>(r);
    at.advance(n);
    done += n;
    left -= n;
  }
  return done;
}

void TlsStream::handshake_timed_out() noexcept {
  if (tcp_ != nullptr) ++g_stats.timeouts;
}

void TlsStream::notify_close() noexcept {
  if (tcp_ == nullptr) return;
  push_ = true;
  (void)mbedtls_ssl_close_notify(&ssl_);
}

}  // namespace starling::net::tls
