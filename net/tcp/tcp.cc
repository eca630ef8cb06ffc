#include "net/tcp/tcp.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "kernel/async/check.h"
#include "kernel/async/event.h"
#include "lwip/err.h"
#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"  // tcp_free_ooseq, tcp_process_refused_data
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "net/address/ip_address_lwip.h"
#include "net/tcp/conn.h"
#include "net/tcp/peer_share.h"
#include "net/tcp/tx_reference.h"

namespace starling::net {
namespace detail {

Conn g_conns[MEMP_NUM_TCP_PCB];
TcpStats g_stats{.pool_size = MEMP_NUM_TCP_PCB};

}  // namespace detail

namespace {

using detail::Conn;
using detail::g_conns;
using detail::g_stats;
using detail::grant_peer;
using detail::grant_window;
using detail::ListenerState;
using detail::past_peer_segment_share;
using detail::received_owner;
using detail::rx_released;
using detail::tx_references_free;
using detail::TxReferenceOwner;
using detail::windows_fit_any_share;

// Unread pbufs one connection may hold: a full window of full-size
// segments, plus the out-of-order queue that in-order data can release in
// one delivery.
constexpr std::size_t kMaxUnreadPbufs = TCP_WND / TCP_MSS + TCP_OOSEQ_MAX_PBUFS;

ListenerState g_listeners[MEMP_NUM_TCP_PCB_LISTEN];
std::size_t g_limit = MEMP_NUM_TCP_PCB;

Conn* alloc_conn() {
  if (g_stats.connections_in_use >= g_limit) return nullptr;
  for (Conn& c : g_conns) {
    if (!c.in_use) {
      c.in_use = true;
      ++g_stats.connections_in_use;
      return &c;
    }
  }
  return nullptr;
}

void release_conn(Conn* c) {
  rx_released(c->rx_pbufs);
  c->window_owed = 0;
  // One pbuf at a time: one that a segment still holds (a write of it not
  // yet acknowledged, tx_reference.h) must not keep the rest of the chain.
  for (pbuf* p = c->rx; p != nullptr;) {
    pbuf* next = std::exchange(p->next, nullptr);
    pbuf_free(p);
    p = next;
  }
  c->rx = nullptr;
  c->rx_pbufs = 0;
  c->pcb = nullptr;
  c->next_pending = nullptr;
  c->rx_event.reset();
  c->tx_event.reset();
  c->peer = {};
  c->local = {};
  c->error = ERR_OK;
  c->eof = c->connected = c->tx_shut = c->inbound = false;
  c->in_use = false;
  --g_stats.connections_in_use;
}

void detach(tcp_pcb* pcb);

err_t on_recv(void* arg, tcp_pcb* pcb, pbuf* p, err_t err) {
  auto* c = static_cast<Conn*>(arg);
  if (c == nullptr) {  // not ours any more: drop like tcp_recv_null
    if (p != nullptr) {
      tcp_recved(pcb, p->tot_len);
      pbuf_free(p);
    }
    return ERR_OK;
  }
  if (p == nullptr) {  // FIN
    c->eof = true;
    c->rx_event.set();
    if (pcb->state == TIME_WAIT) {
      // We had sent our FIN (shutdown) and it was acknowledged: the close
      // is complete, and lwIP owns the pcb now. It frees a TIME_WAIT pcb
      // without a callback (its 2 MSL timer, or tcp_alloc taking the oldest
      // back when the pool is empty, as a connection storm makes it), so
      // keeping the pointer would have close() touch a pcb that may by then
      // be another connection's (found by test/http's storm: lwIP's
      // "pcb->next != pcb" assertion). Forget it here.
      detach(pcb);
      c->pcb = nullptr;
    }
    return ERR_OK;
  }
  if (err != ERR_OK) {  // not produced by lwIP 2.1; be safe
    pbuf_free(p);
    return ERR_OK;
  }
  // The bound on what one connection's unread data may hold (issue 12): a
  // full window of full-size segments fits; a peer that sends tiny
  // segments and never lets the reader catch up is refused here. lwIP then
  // keeps this one segment (refused_data) and drops further data until the
  // reader has made room (read() hands it back at once; lwIP retries from
  // its fast timer otherwise); the peer retransmits.
  const std::size_t pbufs = pbuf_clen(p);
  if (c->rx_pbufs + pbufs > kMaxUnreadPbufs) {
    ++g_stats.refused_unread;
    return ERR_MEM;
  }
  if (c->rx == nullptr) {
    c->rx = p;
    c->rx_pbufs = pbufs;
  } else {
    // A chain's tot_len is 16 bits: refuse (lwIP keeps it and retries from
    // its timer) rather than overflow. The window (TCP_WND < 64 KiB) makes
    // this rare.
    if (std::size_t{c->rx->tot_len} + p->tot_len > 0xFFFF) return ERR_MEM;
    pbuf_cat(c->rx, p);
    c->rx_pbufs += pbufs;
  }
  c->rx_event.set();
  return ERR_OK;
}

err_t on_sent(void* arg, tcp_pcb*, u16_t) {
  if (auto* c = static_cast<Conn*>(arg)) c->tx_event.set();
  return ERR_OK;
}

err_t on_poll(void* arg, tcp_pcb*) {
  // A writer waiting on lwIP's heap (ERR_MEM with nothing in flight) has no
  // sent() to wake it: retry from the poll timer. A window owed for the
  // peer's share is offered again (out-of-order data lwIP freed by itself
  // is only seen by looking).
  if (auto* c = static_cast<Conn*>(arg)) {
    c->tx_event.set();
    grant_window(*c);
  }
  return ERR_OK;
}

// The pcb is already freed by lwIP: forget it, never touch it again.
void on_err(void* arg, err_t err) {
  auto* c = static_cast<Conn*>(arg);
  ++g_stats.errors;
  if (err == ERR_RST) ++g_stats.resets;
  if (c == nullptr) return;
  c->pcb = nullptr;
  c->error = err;
  c->rx_event.set();
  c->tx_event.set();
}

void attach(Conn* c, tcp_pcb* pcb) {
  c->pcb = pcb;
  c->peer = {from_lwip(pcb->remote_ip), pcb->remote_port};
  c->local = {from_lwip(pcb->local_ip), pcb->local_port};
  tcp_arg(pcb, c);
  tcp_recv(pcb, on_recv);
  tcp_sent(pcb, on_sent);
  tcp_err(pcb, on_err);
  tcp_poll(pcb, on_poll, 2);
  tcp_nagle_disable(pcb);
}

void detach(tcp_pcb* pcb) {
  tcp_arg(pcb, nullptr);
  tcp_recv(pcb, nullptr);
  tcp_sent(pcb, nullptr);
  tcp_err(pcb, nullptr);
  tcp_poll(pcb, nullptr, 0);
}

// Ends a connection: graceful close, abort as the fallback. Returns the
// error to report (if close had to abort).
Result<void> close_conn(Conn* c) {
  Result<void> result;
  const IpAddress peer = c->peer.address.peer();
  if (tcp_pcb* pcb = c->pcb) {
    detach(pcb);
    c->pcb = nullptr;
    // Nobody will read past this point: out-of-order data would only hold
    // buffers while the FIN waits for an ACK a hostile peer never sends.
    tcp_free_ooseq(pcb);
    // A window still owed for the peer's share is no unread data: lwIP
    // answers a close with a reset when the window is not whole.
    if (c->window_owed != 0) {
      tcp_recved(pcb, static_cast<u16_t>(std::min<std::size_t>(c->window_owed, 0xFFFF)));
      c->window_owed = 0;
    }
    if (tcp_close(pcb) != ERR_OK) {
      tcp_abort(pcb);
      ++g_stats.close_aborts;
      result = Unexpected(Error::kNoMemory);
    }
  }
  release_conn(c);
  // What it held and was offered is the peer's other connections' now.
  if (!windows_fit_any_share()) grant_peer(peer);
  return result;
}

void abort_conn(Conn* c) {
  if (tcp_pcb* pcb = c->pcb) {
    detach(pcb);
    c->pcb = nullptr;
    tcp_abort(pcb);
  }
  release_conn(c);
}

err_t on_accept(void* arg, tcp_pcb* newpcb, err_t err) {
  auto* l = static_cast<ListenerState*>(arg);
  if (err != ERR_OK || newpcb == nullptr) {  // lwIP could not allocate a pcb
    ++g_stats.refused_pool;
    if (l != nullptr) ++l->refused;
    return ERR_VAL;
  }
  if (l == nullptr) {
    tcp_abort(newpcb);
    return ERR_ABRT;
  }
  if (l->pending >= l->backlog) {
    ++g_stats.refused_backlog;
    ++l->refused;
    tcp_abort(newpcb);
    return ERR_ABRT;
  }
  if (detail::past_connection_share(from_lwip(newpcb->remote_ip).peer())) {
    ++g_stats.refused_peer_share;
    ++l->refused;
    tcp_abort(newpcb);
    return ERR_ABRT;
  }
  Conn* c = alloc_conn();
  if (c == nullptr) {
    ++g_stats.refused_pool;
    ++l->refused;
    tcp_abort(newpcb);
    return ERR_ABRT;
  }
  attach(c, newpcb);
  c->connected = true;
  c->inbound = true;
  c->window_owed = detail::take_first_window_owed(newpcb);
  if (l->tail != nullptr) {
    l->tail->next_pending = c;
  } else {
    l->head = c;
  }
  l->tail = c;
  ++l->pending;
  ++g_stats.accepted;
  l->accept_event.set();
  return ERR_OK;
}

err_t on_connected(void* arg, tcp_pcb*, err_t) {
  if (auto* c = static_cast<Conn*>(arg)) {
    c->connected = true;
    c->tx_event.set();
  }
  return ERR_OK;
}

}  // namespace

const TcpStats& tcp_stats() noexcept {
  return g_stats;
}

void set_tcp_pool_limit_for_testing(std::size_t slots) noexcept {
  g_limit = (slots == 0 || slots > MEMP_NUM_TCP_PCB) ? MEMP_NUM_TCP_PCB : slots;
}

// ---- TcpStream ---------------------------------------------------------------

TcpStream::TcpStream(TcpStream&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}

TcpStream& TcpStream::operator=(TcpStream&& other) noexcept {
  if (this != &other) {
    (void)close();
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

TcpStream::~TcpStream() {
  (void)close();
}

async::Task<TcpStream> TcpStream::connect(Endpoint remote) noexcept {
  Conn* c = alloc_conn();
  if (c == nullptr) co_return Unexpected(Error::kNoMemory);
  TcpStream stream(c);  // owns the slot: a cancelled connect aborts it
  tcp_pcb* pcb = tcp_new_ip_type(remote.address.is_v6() ? IPADDR_TYPE_V6 : IPADDR_TYPE_V4);
  if (pcb == nullptr) co_return Unexpected(Error::kNoMemory);
  attach(c, pcb);
  const ip_addr_t addr = to_lwip(remote.address);
  err_t err = tcp_connect(pcb, &addr, remote.port, on_connected);
  if (err != ERR_OK) co_return Unexpected(from_lwip_error(err));
  // attach() ran on the unbound pcb (all zeros). tcp_connect has now set
  // the remote end, chosen the local address (route) and bound an ephemeral
  // port, synchronously: record both ends here, while the pcb is certainly
  // alive (after the handshake it may already have been reset and freed).
  c->peer = {from_lwip(pcb->remote_ip), pcb->remote_port};
  c->local = {from_lwip(pcb->local_ip), pcb->local_port};
  while (!c->connected) {
    if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
    c->tx_event.reset();
    co_await c->tx_event.wait();
  }
  // Established. It may have been reset since (c->pcb == nullptr, e.g. the
  // listener's backlog was full): still a stream, whose reads report it.
  co_return std::move(stream);
}

namespace {

// Frees the first n of c's received bytes (it has at least n) and opens
// the window by as much.
void consume_received(Conn* c, u16_t n) {
  c->rx = pbuf_free_header(c->rx, n);  // frees the fully consumed pbufs
  const std::size_t left = c->rx == nullptr ? 0 : pbuf_clen(c->rx);
  rx_released(c->rx_pbufs - left);
  c->rx_pbufs = left;
  if (c->pcb != nullptr) {
    c->window_owed += n;
    // This connection first, then the peer's others waiting for room: this
    // read made some (with every window fitting, nobody waits).
    if (windows_fit_any_share()) {
      grant_window(*c);
    } else {
      grant_peer(c->peer.address.peer(), c);
    }
    // Data refused for want of room (on_recv) is taken now, not on
    // lwIP's next fast timer. It may call on_recv, never free c.
    if (c->pcb->refused_data != nullptr) (void)tcp_process_refused_data(c->pcb);
  }
}

// Copies up to buf.size() of c's received bytes (it has some) and consumes
// them.
std::size_t take_received(Conn* c, std::span<std::byte> buf) {
  const auto want = static_cast<u16_t>(std::min<std::size_t>(buf.size(), c->rx->tot_len));
  const u16_t n = pbuf_copy_partial(c->rx, buf.data(), want, 0);
  consume_received(c, n);
  return n;
}

// The first non-empty piece of c's received bytes (it has some).
std::span<const std::byte> first_received(const Conn* c) {
  for (const pbuf* q = c->rx; q != nullptr; q = q->next) {
    if (q->len != 0) return {static_cast<const std::byte*>(q->payload), q->len};
  }
  return {};
}

}  // namespace

bool TcpStream::ReceiveWait::ready() noexcept {
  Conn* c = conn_;
  if (c == nullptr || c->rx != nullptr || c->eof || c->pcb == nullptr) return true;
  c->rx_event.reset();
  return false;
}

async::Event& TcpStream::ReceiveWait::readable_event() noexcept {
  return conn_->rx_event;
}

Result<std::size_t> TcpStream::Read::await_resume() noexcept {
  Conn* c = wait_.done();
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (buf_.empty()) return std::size_t{0};
  if (c->rx != nullptr) return take_received(c, buf_);
  if (c->eof) return std::size_t{0};
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  return Unexpected(Error::kBusy);  // rx_event is set only with data, a FIN or an error
}

Result<std::size_t> TcpStream::try_read(std::span<std::byte> buf) noexcept {
  Conn* c = conn_;
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (c->rx != nullptr && !buf.empty()) return take_received(c, buf);
  if (c->eof || buf.empty()) return std::size_t{0};
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  return std::size_t{0};
}

Result<std::span<const std::byte>> TcpStream::Peek::await_resume() noexcept {
  Conn* c = wait_.done();
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  // Never an empty piece while bytes remain: empty means the end.
  if (c->rx != nullptr && c->rx->tot_len != 0) return first_received(c);
  if (c->eof) return std::span<const std::byte>{};
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  return Unexpected(Error::kBusy);  // rx_event is set only with data, a FIN or an error
}

Result<void> TcpStream::consume(std::size_t n) noexcept {
  Conn* c = conn_;
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (n == 0) return {};
  if (c->rx == nullptr || n > c->rx->tot_len) return Unexpected(Error::kInvalidArgument);
  consume_received(c, static_cast<u16_t>(n));
  return {};
}

bool TcpStream::at_end() const noexcept {
  return conn_ != nullptr && conn_->rx == nullptr && conn_->eof;
}

async::Task<void> TcpStream::wait_readable() noexcept {
  Conn* c = conn_;
  if (c == nullptr) co_return Unexpected(Error::kInvalidArgument);
  while (c->rx == nullptr && !c->eof) {
    if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
    c->rx_event.reset();
    co_await c->rx_event.wait();
  }
  co_return {};
}

async::Task<void> TcpStream::wait_writable() noexcept {
  Conn* c = conn_;
  if (c == nullptr) co_return Unexpected(Error::kInvalidArgument);
  if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
  // As send() does when lwIP took nothing (send buffer, segment queue, the
  // peer's share of segments or lwIP's heap): push what is queued, then
  // acknowledgements (sent), the poll timer or an error wake us.
  c->tx_event.reset();
  tcp_output(c->pcb);
  co_await c->tx_event.wait();
  if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
  co_return {};
}

namespace {

// Queues as much of `data` as lwIP takes now: the send buffer, the segment
// queue and lwIP's heap (ERR_MEM) bound it. The bytes taken, or lwIP's
// error. `more`: data follows, so no segment of this gets PSH. `owner`:
// the received pbuf `data` lies in (received_owner()), or nullptr; its
// bytes are referred to, not copied, while references are free (two a
// chunk of at most an MSS: one piece may extend the last unsent segment,
// one starts a segment).
Result<std::size_t> queue_what_fits(tcp_pcb* pcb, std::span<const std::byte> data, bool more,
                                    pbuf* owner) {
  std::size_t done = 0;
  while (done < data.size()) {
    const std::size_t space = tcp_sndbuf(pcb);
    if (space == 0 || tcp_sndqueuelen(pcb) >= TCP_SND_QUEUELEN) break;
    if (past_peer_segment_share(pcb)) {
      ++g_stats.peer_segment_waits;
      break;
    }
    const std::size_t left = data.size() - done;
    const auto chunk = static_cast<u16_t>(std::min({space, left, std::size_t{0xFFFF}}));
    const u8_t flags = chunk < left || more ? TCP_WRITE_FLAG_MORE : 0;
    err_t err = ERR_MEM;
    if (owner != nullptr) {
      if (tx_references_free() >= 2) {
        const TxReferenceOwner referring(owner);
        err = tcp_write(pcb, data.data() + done, chunk, flags);  // no copy: pieces hold `owner`
      }
      // Refused (no reference free, or more pieces than were: a peer's
      // small MSS), lwIP's queue unchanged: copied after all.
      if (err == ERR_MEM) ++g_stats.tx_reference_fallbacks;
    }
    if (err == ERR_MEM)
      err = tcp_write(pcb, data.data() + done, chunk, flags | TCP_WRITE_FLAG_COPY);
    if (err == ERR_MEM) break;
    if (err != ERR_OK) return Unexpected(from_lwip_error(err));
    done += chunk;
  }
  return done;
}

// Sends what is queued. A full TX ring (ERR_WOULDBLOCK) or heap (ERR_MEM):
// the data stays queued, and lwIP sends it when room returns.
Result<void> push_queued(tcp_pcb* pcb) {
  const err_t err = tcp_output(pcb);
  if (err != ERR_OK && err != ERR_MEM && err != ERR_WOULDBLOCK) {
    return Unexpected(from_lwip_error(err));
  }
  return {};
}

}  // namespace

namespace {

// One step of a write, the same at once and after each wait: queues what
// fits of data[done..] (the connection's state checked first) and, once
// all is queued, pushes it if `push`. True when the write is complete,
// false while some waits for room; lwIP's error or the stream's otherwise.
// Inlined into both callers: out of line it cost ~50 instructions a TCP
// record (its Result and the count through memory).
[[gnu::always_inline]] inline Result<bool> queue_more(Conn* c, std::span<const std::byte> data,
                                                      std::size_t& done, bool push) {
  if (done < data.size()) {
    if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
    if (c->tx_shut) return Unexpected(Error::kInvalidArgument);
    const auto rest = data.subspan(done);
    const auto taken = queue_what_fits(c->pcb, rest, !push, received_owner(c->rx, rest));
    if (!taken.ok()) return Unexpected(taken.error());
    done += *taken;
    if (done < data.size()) return false;
  }
  if (push && c->pcb != nullptr) {
    if (auto pushed = push_queued(c->pcb); !pushed.ok()) return Unexpected(pushed.error());
  }
  return true;
}

}  // namespace

bool TcpStream::Send::await_ready() noexcept {
  if (conn_ == nullptr) return finish(Error::kInvalidArgument);
  const auto complete = queue_more(conn_, data_, done_, push_);
  if (!complete.ok()) return finish(complete.error());
  finished_ = *complete;
  return finished_;  // false: the rest waits for room, in rest()
}

async::Task<std::size_t> TcpStream::Send::rest() noexcept {
  Conn* c = conn_;
  std::size_t done = done_;
  const std::span<const std::byte> data = data_;
  const bool push = push_;
  for (;;) {
    // No room (send buffer, segment queue or lwIP's heap): push what is
    // queued and wait for acknowledgements (sent), the poll timer or an error.
    c->tx_event.reset();
    tcp_output(c->pcb);
    co_await c->tx_event.wait();
    const auto complete = queue_more(c, data, done, push);
    if (!complete.ok()) co_return Unexpected(complete.error());
    if (*complete) co_return done;
  }
}

Result<std::size_t> TcpStream::try_write(std::span<const std::span<const std::byte>> pieces,
                                         bool push) noexcept {
  Conn* c = conn_;
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  if (c->tx_shut) return Unexpected(Error::kInvalidArgument);
  std::size_t left = 0;
  for (const auto& piece : pieces) left += piece.size();
  std::size_t done = 0;
  for (const auto& piece : pieces) {
    left -= piece.size();
    const auto taken =
        queue_what_fits(c->pcb, piece, left > 0 || !push, received_owner(c->rx, piece));
    if (!taken.ok()) return Unexpected(taken.error());
    done += *taken;
    if (*taken < piece.size()) return done;  // the rest waits for room
  }
  if (push) {
    if (auto pushed = push_queued(c->pcb); !pushed.ok()) return Unexpected(pushed.error());
  }
  return done;
}

Result<void> TcpStream::shutdown() noexcept {
  Conn* c = conn_;
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  if (c->tx_shut) return {};
  const err_t err = tcp_shutdown(c->pcb, 0, 1);
  if (err != ERR_OK) return Unexpected(from_lwip_error(err));
  c->tx_shut = true;
  return {};
}

Result<void> TcpStream::close() noexcept {
  Conn* c = std::exchange(conn_, nullptr);
  if (c == nullptr) return {};
  return close_conn(c);
}

void TcpStream::abort() noexcept {
  if (Conn* c = std::exchange(conn_, nullptr)) abort_conn(c);
}

void TcpStream::set_nodelay(bool on) noexcept {
  if (conn_ == nullptr || conn_->pcb == nullptr) return;
  if (on) {
    tcp_nagle_disable(conn_->pcb);
  } else {
    tcp_nagle_enable(conn_->pcb);
  }
}

Endpoint TcpStream::peer() const noexcept {
  return conn_ ? conn_->peer : Endpoint{};
}
Endpoint TcpStream::local() const noexcept {
  return conn_ ? conn_->local : Endpoint{};
}
int TcpStream::lwip_error() const noexcept {
  return conn_ ? conn_->error : ERR_OK;
}
std::size_t TcpStream::readable() const noexcept {
  return (conn_ && conn_->rx) ? conn_->rx->tot_len : 0;
}

// ---- TcpListener -------------------------------------------------------------

TcpListener::TcpListener(TcpListener&& other) noexcept
    : state_(std::exchange(other.state_, nullptr)) {}

TcpListener& TcpListener::operator=(TcpListener&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::exchange(other.state_, nullptr);
  }
  return *this;
}

TcpListener::~TcpListener() {
  close();
}

Result<TcpListener> TcpListener::listen(std::uint16_t port, std::size_t backlog) noexcept {
  if (backlog == 0) return Unexpected(Error::kInvalidArgument);
  ListenerState* l = nullptr;
  for (ListenerState& s : g_listeners) {
    if (!s.in_use) {
      l = &s;
      break;
    }
  }
  if (l == nullptr) return Unexpected(Error::kNoMemory);
  // Both families on one listener (IPADDR_TYPE_ANY): an accepted pcb has
  // its peer's family.
  tcp_pcb* pcb = tcp_new_ip_type(IPADDR_TYPE_ANY);
  if (pcb == nullptr) return Unexpected(Error::kNoMemory);
  const err_t err = tcp_bind(pcb, IP_ANY_TYPE, port);
  if (err != ERR_OK) {
    tcp_abort(pcb);  // never connected: just frees it
    return Unexpected(from_lwip_error(err));
  }
  err_t listen_err = ERR_OK;
  tcp_pcb* lpcb = tcp_listen_with_backlog_and_err(pcb, 0xFF, &listen_err);
  if (lpcb == nullptr) {
    tcp_abort(pcb);
    return Unexpected(from_lwip_error(listen_err));
  }
  l->in_use = true;
  l->pcb = lpcb;
  l->backlog = backlog;
  l->port = lpcb->local_port;
  tcp_arg(lpcb, l);
  tcp_accept(lpcb, on_accept);
  detail::offer_first_windows(lpcb);
  return TcpListener(l);
}

async::Task<TcpStream> TcpListener::accept() noexcept {
  ListenerState* l = state_;
  if (l == nullptr) co_return Unexpected(Error::kInvalidArgument);
  for (;;) {
    while (Conn* c = l->head) {
      l->head = c->next_pending;
      if (l->head == nullptr) l->tail = nullptr;
      c->next_pending = nullptr;
      --l->pending;
      if (c->pcb == nullptr && c->rx == nullptr && !c->eof) {
        release_conn(c);  // reset before anyone saw it
        continue;
      }
      co_return TcpStream(c);
    }
    if (l->pcb == nullptr) co_return Unexpected(Error::kCancelled);
    l->accept_event.reset();
    co_await l->accept_event.wait();
  }
}

std::uint64_t TcpListener::refused() const noexcept {
  return state_ ? state_->refused : 0;
}
std::size_t TcpListener::pending() const noexcept {
  return state_ ? state_->pending : 0;
}
std::uint16_t TcpListener::port() const noexcept {
  return state_ ? state_->port : 0;
}

void TcpListener::close() noexcept {
  ListenerState* l = std::exchange(state_, nullptr);
  if (l == nullptr) return;
  if (l->pcb != nullptr) {
    tcp_arg(l->pcb, nullptr);
    tcp_accept(l->pcb, nullptr);
    tcp_close(l->pcb);  // a listening pcb closes without allocating
    l->pcb = nullptr;
  }
  while (Conn* c = l->head) {
    l->head = c->next_pending;
    abort_conn(c);
  }
  l->tail = nullptr;
  l->pending = 0;
  l->refused = 0;
  l->accept_event.set();  // a pending accept() wakes and sees kCancelled
  l->accept_event.reset();
  l->in_use = false;
}

}  // namespace starling::net
