#ifndef STARLING_NET_TCP_TCP_H_
#define STARLING_NET_TCP_TCP_H_

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "kernel/async/event.h"
#include "kernel/async/promise.h"
#include "kernel/async/task.h"
#include "kernel/lib/result.h"
#include "net/address/endpoint.h"
#include "net/port/lwip_error.h"

// The coroutine TCP API over lwIP's raw API (NO_SYS=1). lwIP's callbacks
// (accept, recv, sent, err, poll) stay inside tcp.cc; applications see
// listeners, streams and Tasks:
//
//   auto listener = TcpListener::listen(1236, 8);
//   for (;;) {
//     Result<TcpStream> s = co_await listener->accept();
//     ...
//     auto n = co_await async::with_timeout(stream.read(buf), 5 * kSecond);
//   }
//
// Everything runs in task context on the executor (lwIP is never entered from
// an interrupt handler). Every wait (accept, read, write, connect) can be
// bounded by async::with_timeout / with_deadline (read is an awaiter bounded
// in place, write one whose waiting part is a task, accept and connect
// tasks); a cancelled wait unlinks
// itself and leaves the stream usable (a cancelled write may have queued part
// of its data: the stream is then only good for close()).
//
// Memory: connection state comes from a fixed pool of MEMP_NUM_TCP_PCB slots
// (and listeners from MEMP_NUM_TCP_PCB_LISTEN): no heap per connection or per
// packet. Received pbufs are queued per connection (chained) until read() copies
// them out and opens the window (tcp_recved). A full pool or a full accept
// backlog refuses the connection (RST via tcp_abort) and counts it.
//
// Errors: lwIP's err_t mapped once for all sockets (net/port/lwip_error.h).
// Endpoints: net::Endpoint, host byte order (net/address/endpoint.h).
// TcpStream::lwip_error() keeps the raw err_t (e.g. ERR_RST for a reset).
// Operations on a stream the application closed or shut down for writing
// are kInvalidArgument.
namespace starling::net {

// Global counters (one lwIP instance per kernel).
struct TcpStats {
  std::uint64_t accepted = 0;            // connections handed to a listener's queue
  std::uint64_t refused_backlog = 0;     // aborted: the listener's backlog was full
  std::uint64_t refused_pool = 0;        // aborted: no connection slot / no lwIP pcb
  std::uint64_t refused_peer_share = 0;  // aborted: that peer already held its share
  std::uint64_t resets = 0;              // connections that ended with ERR_RST
  std::uint64_t errors = 0;              // all tcp_err callbacks (resets included)
  std::uint64_t close_aborts = 0;        // close() fell back to tcp_abort
  std::uint64_t refused_unread =
      0;  // segments refused: the reader had TCP_WND/TCP_MSS + TCP_OOSEQ_MAX_PBUFS pbufs unread
  std::uint64_t refused_peer_data = 0;  // segments dropped: their peer held its share of pbufs
  // Receive windows kept smaller than the reader made room for (at a read,
  // or a new connection's): the peer held or was offered its share.
  std::uint64_t window_withheld = 0;
  // Out-of-order queues freed because their peer reached its share.
  std::uint64_t ooseq_evicted = 0;
  std::uint64_t peer_segment_waits =
      0;  // writes that waited: their peer held its share of segments
  // Segment pieces sent from the received buffer they arrived in (a write
  // of what peek() showed), and such writes copied after all (no reference
  // free: net/tcp/tx_reference.h); references held now.
  std::uint64_t tx_referenced = 0;
  std::uint64_t tx_reference_fallbacks = 0;
  std::size_t tx_references_held = 0;
  std::size_t connections_in_use = 0;  // pool slots currently held
  std::size_t pool_size = 0;           // pool slots available in total
};
const TcpStats& tcp_stats() noexcept;

namespace detail {
struct Conn;
struct ListenerState;
}  // namespace detail

class TcpStream {
 public:
  TcpStream() noexcept = default;
  TcpStream(TcpStream&& other) noexcept;
  TcpStream& operator=(TcpStream&& other) noexcept;
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;
  ~TcpStream();  // close()

  // Active open (clients, tests). Waits for the handshake.
  static async::Task<TcpStream> connect(Endpoint remote) noexcept;

  bool valid() const noexcept { return conn_ != nullptr; }

  // What read() and peek() share: the wait, with no frame, for the
  // connection to have something to hand over (bytes, the end, an error).
  // A member, not a base: the awaiters must stay standard-layout for
  // with_timeout (kernel/async/timeout.h).
  class ReceiveWait {
   public:
    explicit ReceiveWait(detail::Conn* conn) noexcept : conn_(conn) {}
    ReceiveWait(ReceiveWait&& other) noexcept : conn_(other.conn_) {}  // before it waits
    // Whether there is something now (or no connection); if not, arms the
    // readable event for suspend().
    bool ready() noexcept;
    template <async::TaskPromiseType P>
    void suspend(std::coroutine_handle<P> task) noexcept {
      wait_.emplace(readable_event());
      wait_->await_suspend(task);
    }
    // After the wait: unlinked; the connection to read from.
    detail::Conn* done() noexcept {
      wait_.reset();
      return conn_;
    }

   private:
    async::Event& readable_event() noexcept;
    detail::Conn* conn_;
    std::optional<async::Event::Awaiter> wait_;
  };

  // co_await read(buf): copies up to buf.size() received bytes (waits
  // until there is at least one); 0 at end of stream (the peer's FIN, after
  // all data). Data that arrived before a reset is returned first, then the
  // error. An awaiter, not a task (no frame per read), and a
  // CancellableWait (kernel/async/cancellable_wait.h): with_timeout and a
  // Deadline bound it in place; cancelled, it has taken nothing. One reader
  // at a time: a reader woken to find another took the bytes gets kBusy.
  class [[nodiscard]] Read {
   public:
    static constexpr bool kCancellableWait = true;

    Read(detail::Conn* conn, std::span<std::byte> buf) noexcept : wait_(conn), buf_(buf) {}
    Read(Read&& other) noexcept : wait_(std::move(other.wait_)), buf_(other.buf_) {}
    bool await_ready() noexcept { return buf_.empty() || wait_.ready(); }
    template <async::TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      wait_.suspend(task);
    }
    Result<std::size_t> await_resume() noexcept;

   private:
    ReceiveWait wait_;
    std::span<std::byte> buf_;
  };
  Read read(std::span<std::byte> buf) noexcept { return Read(conn_, buf); }
  // co_await peek(): the received bytes at the front of the stream without
  // copying them: the first contiguous piece, as it lies in the receive
  // buffer (a segment's payload; waits until there is one); empty at end of
  // stream. Nothing is taken: consume(n) takes the first n bytes, freeing
  // them and opening the window by as much, as read() does. The span stays
  // valid until consume(), read(), try_read(), close(), abort() or the
  // stream's end, so a reply can be written from it (write() copies into
  // lwIP) with no buffer of the reader's own and one copy fewer than read():
  // 605 instructions per 1,460-byte segment aligned, 1,246 when the
  // segment's payload and the reader's buffer differ by 4 bytes in their
  // alignment, as IPv6's 40-byte header makes them (docs/benchmarks.md).
  // Until consumed, the bytes count against the connection's unread share
  // and hold its window as unread data does. Errors, cancellation and the
  // one-reader rule as read()'s.
  class [[nodiscard]] Peek {
   public:
    static constexpr bool kCancellableWait = true;

    explicit Peek(detail::Conn* conn) noexcept : wait_(conn) {}
    Peek(Peek&& other) noexcept : wait_(std::move(other.wait_)) {}
    bool await_ready() noexcept { return wait_.ready(); }
    template <async::TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      wait_.suspend(task);
    }
    Result<std::span<const std::byte>> await_resume() noexcept;

   private:
    ReceiveWait wait_;
  };
  Peek peek() noexcept { return Peek(conn_); }
  // Takes the first n received bytes (after peek()): kInvalidArgument for
  // more than have been received, and nothing is taken then.
  Result<void> consume(std::size_t n) noexcept;
  // co_await write(data): queues all of `data` (copying into lwIP, except
  // bytes peek() showed, which are sent from the buffer they arrived in,
  // held until the peer acknowledges them: net/tcp/tx_reference.h),
  // waiting for send-buffer space (tcp_sndbuf / the sent callback) as often
  // as needed, and pushes it with tcp_output. Returns data.size(). What
  // fits now is queued in await_ready(), with no frame and no timer (a
  // FastPathAwaiter, kernel/async/fast_path.h); only a write that must
  // wait for room continues as a task (rest()), which with_timeout and a
  // Deadline bound and cancel as any task.
  class [[nodiscard]] Send {
   public:
    static constexpr bool kFastPathAwaiter = true;

    Send(detail::Conn* conn, std::span<const std::byte> data, bool push) noexcept
        : conn_(conn), data_(data), push_(push) {}
    // Moved only before it is awaited.
    Send(Send&& other) noexcept : conn_(other.conn_), data_(other.data_), push_(other.push_) {}
    bool await_ready() noexcept;
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
      rest_ = rest();
      if (!rest_.valid()) return parent;  // kNoMemory, from await_resume
      return rest_.start(parent);
    }
    Result<std::size_t> await_resume() noexcept {
      if (!finished_) return rest_.take_result();
      if (failed_) return Unexpected(error_);
      return done_;
    }
    // What is left once await_ready() queued what fitted, as a task.
    async::Task<std::size_t> rest() noexcept;

   private:
    bool finish(Error error) noexcept {
      finished_ = failed_ = true;
      error_ = error;
      return true;
    }

    detail::Conn* conn_;
    std::span<const std::byte> data_;
    std::size_t done_ = 0;
    bool push_;
    bool finished_ = false;
    bool failed_ = false;
    Error error_ = Error::kCancelled;
    async::Task<std::size_t> rest_;
  };
  Send write(std::span<const std::byte> data) noexcept { return Send(conn_, data, true); }
  // The same, without the push: the bytes wait for the next write(), so a
  // response head and its body leave in one segment, not a small one first.
  Send queue(std::span<const std::byte> data) noexcept { return Send(conn_, data, false); }

  // Without waiting: queues as much of `pieces` (in order) as lwIP takes
  // now, and pushes it (tcp_output) if that is all of it and `push`.
  // Returns the bytes taken; the rest is for queue()/write(), which wait
  // for room. A reply that fits the send buffer (an HTTP response, usually)
  // goes out with no coroutine frame and no deadline armed for the wait it
  // never has.
  Result<std::size_t> try_write(std::span<const std::span<const std::byte>> pieces,
                                bool push) noexcept;

  // Without waiting, for a protocol layered on the stream (net/tls): up to
  // buf.size() bytes already received, or 0 when none are (at_end() then
  // says whether the peer has finished). Errors as read()'s.
  Result<std::size_t> try_read(std::span<std::byte> buf) noexcept;
  // The peer's FIN arrived and every byte before it was read.
  bool at_end() const noexcept;
  // Waits until a byte can be read, or the peer finished (FIN), or the
  // connection failed (its error). Reads nothing.
  async::Task<void> wait_readable() noexcept;
  // Waits until the send buffer has room again (after pushing what is
  // queued), or the connection failed.
  async::Task<void> wait_writable() noexcept;

  // Half-close: sends FIN after the queued data; reads still work.
  Result<void> shutdown() noexcept;
  // Graceful close (tcp_close: queued data is still delivered, then FIN);
  // falls back to tcp_abort (RST) if lwIP cannot queue the FIN. Releases the
  // slot; the stream becomes invalid. Idempotent.
  Result<void> close() noexcept;
  // Immediate reset (RST); releases the slot.
  void abort() noexcept;

  // Nagle off (the default here: echo wants latency) or on.
  void set_nodelay(bool on) noexcept;

  Endpoint peer() const noexcept;
  Endpoint local() const noexcept;
  // The raw lwIP err_t that ended the connection (0 = ERR_OK if none).
  int lwip_error() const noexcept;
  // Bytes received and not yet read.
  std::size_t readable() const noexcept;

 private:
  friend class TcpListener;
  explicit TcpStream(detail::Conn* conn) noexcept : conn_(conn) {}
  detail::Conn* conn_ = nullptr;
};

class TcpListener {
 public:
  TcpListener() noexcept = default;
  TcpListener(TcpListener&& other) noexcept;
  TcpListener& operator=(TcpListener&& other) noexcept;
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  ~TcpListener();  // close()

  // Listens on any address. `backlog`: connections accepted by lwIP but not
  // yet by accept() (at least 1); beyond it new connections are refused.
  // kBusy if the port is taken, kNoMemory if no listener slot/pcb is left.
  static Result<TcpListener> listen(std::uint16_t port, std::size_t backlog) noexcept;

  bool valid() const noexcept { return state_ != nullptr; }
  // Waits for the next established connection.
  async::Task<TcpStream> accept() noexcept;
  // Connections refused by this listener (backlog or pool full).
  std::uint64_t refused() const noexcept;
  std::size_t pending() const noexcept;
  std::uint16_t port() const noexcept;
  // Stops listening; connections not yet accepted are reset. Idempotent.
  void close() noexcept;

 private:
  explicit TcpListener(detail::ListenerState* s) noexcept : state_(s) {}
  detail::ListenerState* state_ = nullptr;
};

// For tests: limit the connection pool to `slots` (<= its size; 0 = full size).
void set_tcp_pool_limit_for_testing(std::size_t slots) noexcept;

// Fairness between peers (docs/hostile-peers.md): one peer (an IPv4
// address, or an IPv6 /64: IpAddress::peer()) may hold at most this many of the pool's connections
// at once (the ones it opened to us: accepted, or waiting to be). Past its share a new connection
// from it is reset when its handshake completes and counted (refused_peer_share); every other peer
// is served as before. The bookkeeping is the connection table itself (a scan of its 128 entries at
// each accept): nothing a peer can grow. The default keeps one peer below
// half the pool; 0 turns the limit off. Set from the kernel command line by
// `starling.tcp_peer_share=N|off` (net/fairness/peer_shares.h).
inline constexpr std::size_t kDefaultTcpPeerShare = 63;
void set_tcp_peer_share(std::size_t connections) noexcept;
std::size_t tcp_peer_share() noexcept;

// The received data one peer may make the stack hold, in pbufs, over all
// its connections (either direction): unread by the application, queued
// out of order, or refused and kept by lwIP for a retry. Kept first by the
// receive windows (issue 47): the windows offered to a peer's connections,
// with their unread data, stay within the share (reads reopen them as far
// as there is room, window_withheld counts the rest; a new connection's
// first window is set before its SYN-ACK), two segments at the least, so an
// honest sender slows down rather than loses segments. Then, for what
// windows cannot bound (tiny segments): every segment with data is admitted
// or dropped before lwIP queues it (lwIP's LWIP_HOOK_TCP_INPACKET_PCB); past
// the share the peer's out-of-order queues are freed first (ooseq_evicted),
// then one that would still take its peer past the share is dropped
// unacknowledged and counted (refused_peer_data), unless its connection
// holds nothing (one segment per connection: a window probe is never
// refused for ever) or it starts at its window's left edge while its
// connection holds less than two (the segment that lets the connection
// advance: the share is then exceeded by at most two a connection); the
// peer retransmits once its data has been read. Every other peer is served
// as before. A received pbuf is a NIC buffer (256, of which the stack holds at most 192 zero-copy:
// net/netif/rx_pool.h) or a PBUF_POOL copy (512); the default, 95, is below half of the smallest of
// them. The bookkeeping is a scan of the connection table, made only when all connections together
// might hold a share (a running upper bound says when): an echo that keeps up never scans. 0 turns
// the limit off. Set from the kernel command line by `starling.tcp_peer_rx_pbufs=N|off`
// (net/fairness/peer_shares.h).
inline constexpr std::size_t kDefaultTcpPeerRxPbufs = 95;
inline constexpr std::size_t kMaxTcpPeerRxPbufs = 4096;  // the command line's bound
void set_tcp_peer_rx_pbufs(std::size_t pbufs) noexcept;
std::size_t tcp_peer_rx_pbufs() noexcept;
// The received pbufs `address`'s peer (IpAddress::peer(): the IPv4 address,
// the IPv6 /64) holds now, exactly (a scan).
std::size_t tcp_peer_rx_held(const IpAddress& address) noexcept;

// The share of lwIP's TCP segment pool (MEMP_NUM_TCP_SEG, 512) one peer's
// connections may hold: segments queued to send to it, sent and not yet
// acknowledged, and received from it out of order. A peer that opens
// connections and never reads makes every write to it queue segments; past
// its share a write to that peer waits, as for a full send buffer (until
// acknowledgements, or lwIP's poll timer, make room; the application's own
// write deadline ends it), and is counted (peer_segment_waits), while writes
// to every other peer find segments. Segments are at most an MSS, so the
// share also keeps one peer's queued data below half of lwIP's 1 MiB heap
// (255 x 1460 bytes). The bookkeeping is a scan of the connection table,
// only while the pool itself holds a share (lwIP's pool statistics say).
// 0 turns the limit off. Set by `starling.tcp_peer_segments=N|off`.
inline constexpr std::size_t kDefaultTcpPeerSegments = 255;
void set_tcp_peer_segments(std::size_t segments) noexcept;
std::size_t tcp_peer_segments() noexcept;
std::size_t tcp_segment_pool_size() noexcept;  // MEMP_NUM_TCP_SEG

}  // namespace starling::net

#endif  // STARLING_NET_TCP_TCP_H_
