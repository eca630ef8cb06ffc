#ifndef STARLING_NET_TLS_SESSION_H_
#define STARLING_NET_TLS_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/async/task.h"
#include "kernel/lib/result.h"
#include "net/tcp/tcp.h"

// What a server needs of TLS, without Mbed TLS: an interface the HTTP
// server (net/http/connection_stream.h) calls, and net/tls/tls.h
// implements. An image that never makes a tls::Server links no TLS code
// (the httpd image without HTTPS is the size it was); one that does pays
// for it once (docs/tls.md: image sizes).
namespace starling::net::tls {

// What a session's peer showed of itself (a client certificate).
enum class PeerCertificate : std::uint8_t {
  kNone,      // none offered, the server asks for none, or a resumed session
  kVerified,  // signed by the configured CA (dates unchecked: docs/tls.md)
  kRejected,  // offered and not signed by it (or unusable)
};

// One connection's TLS over its TCP stream (tls.h's TlsStream).
class Session {
 public:
  // The handshake to its end; failures counted by kind (tls.h's TlsStats).
  virtual async::Task<void> handshake() noexcept = 0;
  // Decrypted bytes, at least one (waits); 0 at close_notify or the end.
  virtual async::Task<std::size_t> read(std::span<std::byte> buf) noexcept = 0;
  // All of `data`, waiting for room; `push`: PSH after the last record.
  virtual async::Task<std::size_t> write(std::span<const std::byte> data, bool push) noexcept = 0;
  // As much of `pieces` as fits now, without waiting; the next write is
  // given the rest of the data, in any pieces (tls.h).
  virtual Result<std::size_t> try_write(std::span<const std::span<const std::byte>> pieces,
                                        bool push) noexcept = 0;
  // close_notify, best effort.
  virtual void notify_close() noexcept = 0;
  // The caller stopped waiting for handshake() (its deadline passed):
  // counted as a failure of kind timeout. The session is closed next.
  virtual void handshake_timed_out() noexcept = 0;
  // After the handshake: the client's certificate, if the server asked.
  virtual PeerCertificate peer_certificate() const noexcept = 0;
  // After a failed handshake: true if it failed on what the peer sent (a
  // hello we cannot serve, a malformed record), so that a fatal alert went
  // to the peer; false for a deadline, memory, or a peer that left.
  virtual bool refused_peer() const noexcept = 0;

 protected:
  ~Session() = default;
};

// The server's side: sessions for connections, at most `slots` at once.
class Server {
 public:
  // A session for connection `slot` (< the server's slot count) over `tcp`
  // (which must outlive it): kNoMemory past the TLS memory budget.
  virtual Result<Session*> open(std::size_t slot, TcpStream& tcp) noexcept = 0;
  // Ends it and frees its state. The pointer is dead after.
  virtual void close(Session* session) noexcept = 0;
  // Sessions ask clients for a certificate (a client CA is configured).
  virtual bool verifies_clients() const noexcept = 0;

 protected:
  ~Server() = default;
};

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_SESSION_H_
