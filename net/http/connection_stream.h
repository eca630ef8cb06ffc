#ifndef STARLING_NET_HTTP_CONNECTION_STREAM_H_
#define STARLING_NET_HTTP_CONNECTION_STREAM_H_

#include <cstddef>
#include <span>
#include <utility>

#include "kernel/async/as_task.h"
#include "kernel/async/task.h"
#include "kernel/lib/result.h"
#include "net/tcp/tcp.h"
#include "net/tls/session.h"

// The byte stream one HTTP connection reads and writes: the TCP stream
// itself (port 80), or TLS over it (port 443). The server's code is the
// same for both; each call picks its path with one test, and a plain
// connection's calls are the TcpStream's own (no frame, no copy added).
namespace starling::net::http {

class ConnectionStream {
 public:
  explicit ConnectionStream(TcpStream tcp) noexcept : tcp_(std::move(tcp)) {}
  ConnectionStream(const ConnectionStream&) = delete;
  ConnectionStream& operator=(const ConnectionStream&) = delete;
  ~ConnectionStream() { end_tls(); }

  // TLS over the TCP stream from here on: `server`'s session for `slot`
  // (kNoMemory past the TLS budget). The handshake is the caller's next
  // step.
  Result<void> start_tls(tls::Server& server, std::size_t slot) noexcept {
    auto session = server.open(slot, tcp_);
    if (!session.ok()) return Unexpected(session.error());
    server_ = &server;
    tls_ = *session;
    return {};
  }
  async::Task<void> handshake() noexcept { return tls_->handshake(); }
  // After a failed handshake: the peer was refused (a fatal alert sent).
  bool refused_peer() const noexcept { return tls_ != nullptr && tls_->refused_peer(); }
  // After a failed handshake: the session freed, the TCP stream kept for
  // a lingering close of its own.
  void drop_tls() noexcept { end_tls(); }
  // handshake() outlived its deadline: TLS counts it (kind timeout).
  void handshake_timed_out() noexcept {
    if (tls_ != nullptr) tls_->handshake_timed_out();
  }
  bool secure() const noexcept { return tls_ != nullptr; }
  // The client's certificate (kNone on plain HTTP), and whether the
  // server asks for one at all.
  tls::PeerCertificate peer_certificate() const noexcept {
    return tls_ != nullptr ? tls_->peer_certificate() : tls::PeerCertificate::kNone;
  }

  // Tasks either way (one frame): TLS's are, and the server bounds
  // whichever it gets with the same Deadline.
  async::Task<std::size_t> read(std::span<std::byte> buf) noexcept {
    return tls_ != nullptr ? tls_->read(buf) : async::as_task(tcp_.read(buf));
  }
  async::Task<std::size_t> write(std::span<const std::byte> data) noexcept {
    return tls_ != nullptr ? tls_->write(data, true) : async::as_task(tcp_.write(data));
  }
  async::Task<std::size_t> queue(std::span<const std::byte> data) noexcept {
    return tls_ != nullptr ? tls_->write(data, false) : async::as_task(tcp_.queue(data));
  }
  Result<std::size_t> try_write(std::span<const std::span<const std::byte>> pieces,
                                bool push) noexcept {
    return tls_ != nullptr ? tls_->try_write(pieces, push) : tcp_.try_write(pieces, push);
  }
  // Half-close: TLS's close_notify first, then the FIN.
  Result<void> shutdown() noexcept {
    if (tls_ != nullptr) tls_->notify_close();
    return tcp_.shutdown();
  }
  Result<void> close() noexcept {
    end_tls();
    return tcp_.close();
  }
  void abort() noexcept {
    end_tls();
    tcp_.abort();
  }

 private:
  void end_tls() noexcept {
    if (tls_ != nullptr) server_->close(std::exchange(tls_, nullptr));
  }

  TcpStream tcp_;
  tls::Server* server_ = nullptr;
  tls::Session* tls_ = nullptr;
};

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_CONNECTION_STREAM_H_
