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

namespace starling::net {
namespace detail {

// One connection's state: lives in the pool, pointed to by the pcb's arg and
// by at most one TcpStream (or a listener's pending queue before accept()).
struct Conn {
  tcp_pcb* pcb = nullptr;    // null once lwIP freed it (tcp_err) or we closed
  pbuf* rx = nullptr;        // received, unread data (a chain)
  std::size_t rx_pbufs = 0;  // pbufs in rx: each may be a NIC buffer or a pool pbuf
  Conn* next_pending = nullptr;
  async::Event rx_event;  // data, FIN or error arrived
  async::Event tx_event;  // send space, connected or error
  Endpoint peer{};
  Endpoint local{};
  err_t error = ERR_OK;  // what ended it (tcp_err), ERR_OK while alive
  bool in_use = false;
  bool eof = false;
  bool connected = false;
  bool tx_shut = false;
  bool inbound = false;  // accepted from a listener (counts toward its peer's share)
  // Bytes the application consumed that the receive window has not been
  // given back yet: the peer's share was offered already (grant_window()).
  std::size_t window_owed = 0;
};

struct ListenerState {
  tcp_pcb* pcb = nullptr;
  Conn* head = nullptr;  // accepted by lwIP, not yet by accept()
  Conn* tail = nullptr;
  std::size_t pending = 0;
  std::size_t backlog = 0;
  std::uint64_t refused = 0;
  std::uint16_t port = 0;
  bool in_use = false;
  async::Event accept_event;
};

}  // namespace detail

namespace {

using detail::Conn;
using detail::ListenerState;

// Unread pbufs one connection may hold: a full window of full-size
// segments, plus the out-of-order queue that in-order data can release in
// one delivery.
constexpr std::size_t kMaxUnreadPbufs = TCP_WND / TCP_MSS + TCP_OOSEQ_MAX_PBUFS;

Conn g_conns[MEMP_NUM_TCP_PCB];
ListenerState g_listeners[MEMP_NUM_TCP_PCB_LISTEN];
std::size_t g_limit = MEMP_NUM_TCP_PCB;
static_assert(kDefaultTcpPeerShare < MEMP_NUM_TCP_PCB / 2, "one peer below half the pool");
std::size_t g_peer_share = kDefaultTcpPeerShare;
std::size_t g_peer_rx_pbufs = kDefaultTcpPeerRxPbufs;
static_assert(kDefaultTcpPeerSegments * 2 < MEMP_NUM_TCP_SEG, "one peer below half the segments");
std::size_t g_peer_segments = kDefaultTcpPeerSegments;
// An upper bound on the received pbufs every connection holds (unread, out
// of order, refused): each admitted segment adds its pbufs, each read takes
// away what it freed, and a scan of the table sets it to the exact figure
// (out-of-order and refused data lwIP frees by itself are only found then).
// While it stays within one peer's share no peer can be past it, so the
// per-packet cost is this comparison.
std::size_t g_rx_held_bound = 0;
TcpStats g_stats{.pool_size = MEMP_NUM_TCP_PCB};

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

// Connections `peer` (IpAddress::peer(): an IPv4 address, an IPv6 /64)
// opened to us and holds now.
std::size_t connections_of(const IpAddress& peer) {
  std::size_t n = 0;
  for (const Conn& c : g_conns) {
    if (c.in_use && c.inbound && c.peer.address.peer() == peer) ++n;
  }
  return n;
}

// Takes `pbufs` the application consumed (or a close freed) off the bound.
void rx_released(std::size_t pbufs) {
  g_rx_held_bound = pbufs < g_rx_held_bound ? g_rx_held_bound - pbufs : 0;
}

// Received pbufs one connection holds: unread, and (while lwIP has its pcb)
// queued out of order or refused for a retry.
std::size_t rx_held(const Conn& c) {
  std::size_t n = c.rx_pbufs;
  if (const tcp_pcb* pcb = c.pcb) {
    for (const tcp_seg* seg = pcb->ooseq; seg != nullptr; seg = seg->next) n += pbuf_clen(seg->p);
    if (pcb->refused_data != nullptr) n += pbuf_clen(pcb->refused_data);
  }
  return n;
}

// The received pbufs `peer` holds; sets the bound to the exact total.
std::size_t rx_held_by(const IpAddress& peer) {
  std::size_t all = 0;
  std::size_t of_peer = 0;
  for (const Conn& c : g_conns) {
    if (!c.in_use) continue;
    const std::size_t held = rx_held(c);
    all += held;
    if (c.peer.address.peer() == peer) of_peer += held;
  }
  g_rx_held_bound = all;
  return of_peer;
}

// Issue 47: the share is kept by the receive windows first, by refusals
// only second. A refusal drops an in-window segment unacknowledged, and the
// sender learns of it only by a retransmission timeout (four parallel
// streams from one host on a clean link moved a thirtieth of one stream's
// data); a smaller window slows it without a loss. So the windows one peer's
// connections are offered, with what they hold, stay within its share:
// reading opens a window only as far as the share has room (the rest is
// owed, and given at the peer's next read, close or poll), and a new
// connection's window is cut to the room there is. Each connection keeps
// at least kWindowFloor, so every one moves however many the peer opens; the
// refusal (starling_tcp_inpacket) stays for what windows cannot bound
// (tiny segments, each a whole pbuf).

// The receive window as the pbufs full-size segments into it would take.
std::size_t window_pbufs(const tcp_pcb* pcb) {
  return (std::size_t{pcb->rcv_wnd} + TCP_MSS - 1) / TCP_MSS;
}
constexpr std::size_t kWindowPbufs = (TCP_WND + TCP_MSS - 1) / TCP_MSS;
constexpr std::size_t kWindowFloor = 2 * TCP_MSS;

// What `peer`'s connections hold and may still be sent without a refusal:
// their unread pbufs plus their open receive windows. Out-of-order data is
// not added: it lies inside the window (lwIP trims it to it), which it
// does not shrink until it is delivered.
std::size_t commitment_of(const IpAddress& peer) {
  std::size_t n = 0;
  for (const Conn& c : g_conns) {
    if (!c.in_use || !(c.peer.address.peer() == peer)) continue;
    n += c.rx_pbufs;
    if (c.pcb != nullptr) {
      n += window_pbufs(c.pcb);
      if (c.pcb->refused_data != nullptr) n += pbuf_clen(c.pcb->refused_data);
    }
  }
  return n;
}

// Whether every connection's whole window plus every pbuf held fits one
// share: then no peer can be committed past it, and nothing is scanned (one
// connection, or two).
bool windows_fit_any_share() {
  return g_peer_rx_pbufs == 0 ||
         g_rx_held_bound + g_stats.connections_in_use * kWindowPbufs <= g_peer_rx_pbufs;
}

// Gives `c`'s receive window back what its reader consumed, as far as its
// peer's share has room (never leaving it below kWindowFloor).
void grant_window(Conn& c) {
  if (c.pcb == nullptr || c.window_owed == 0) return;
  std::size_t give = c.window_owed;
  if (!windows_fit_any_share()) {
    const std::size_t committed = commitment_of(c.peer.address.peer());
    const std::size_t room = committed < g_peer_rx_pbufs ? g_peer_rx_pbufs - committed : 0;
    give = std::min(give, room * TCP_MSS);
    if (std::size_t{c.pcb->rcv_wnd} + give < kWindowFloor) {
      give = std::min(c.window_owed, kWindowFloor - c.pcb->rcv_wnd);
    }
    if (give < c.window_owed) ++g_stats.window_withheld;
  }
  if (give == 0) return;
  const bool was_small = c.pcb->rcv_wnd < kWindowFloor;
  c.window_owed -= give;
  tcp_recved(c.pcb, static_cast<u16_t>(give));
  // lwIP tells the peer of a window that grew by less than a quarter
  // only with its next segment; one that was all but shut must hear now.
  if (was_small) {
    tcp_ack_now(c.pcb);
    (void)tcp_output(c.pcb);
  }
}

// The same for every connection of `peer` owed a window, `first` (if
// given) before the others.
void grant_peer(const IpAddress& peer, Conn* first = nullptr) {
  if (first != nullptr) grant_window(*first);
  for (Conn& c : g_conns) {
    if (&c != first && c.in_use && c.window_owed != 0 && c.peer.address.peer() == peer) {
      grant_window(c);
    }
  }
}

// A new connection's first window, set before its SYN-ACK offers it
// (lwIP's passive-open callback, LWIP_TCP_PCB_NUM_EXT_ARGS): what the peer's
// share has room for, counting the connections it has and the ones whose
// handshakes are still under way (their pcbs are not ours yet), at least
// kWindowFloor and at most TCP_WND. Cut later, the window would trim what
// the peer had already sent into it: a loss in all but name.
// Whether a pcb's arg is one of our connections (a listener's state, or
// nothing, otherwise). std::less: a total order even for pointers into
// different arrays, where < is unspecified.
bool is_conn(const void* arg) {
  const std::less<const void*> before;
  return !before(arg, std::begin(g_conns)) && before(arg, std::end(g_conns));
}

err_t fit_first_window(u8_t id, tcp_pcb_listen*, tcp_pcb* pcb) {
  if (g_peer_rx_pbufs == 0) return ERR_OK;
  const IpAddress peer = from_lwip(pcb->remote_ip).peer();
  std::size_t committed = commitment_of(peer);
  for (const tcp_pcb* p = tcp_active_pcbs; p != nullptr; p = p->next) {
    if (p != pcb && p->state == SYN_RCVD && !is_conn(p->callback_arg) &&
        from_lwip(p->remote_ip).peer() == peer) {
      committed += window_pbufs(p);
    }
  }
  const std::size_t room = committed < g_peer_rx_pbufs ? g_peer_rx_pbufs - committed : 0;
  const std::size_t window = std::clamp<std::size_t>(room * TCP_MSS, kWindowFloor, TCP_WND);
  if (window < pcb->rcv_wnd) {
    pcb->rcv_wnd = pcb->rcv_ann_wnd = static_cast<tcpwnd_size_t>(window);
    // Owed from the start: on_accept moves it to the connection.
    tcp_ext_arg_set(pcb, id, reinterpret_cast<void*>(std::uintptr_t{TCP_WND - window}));
    ++g_stats.window_withheld;
  }
  return ERR_OK;
}

constexpr tcp_ext_arg_callbacks kFirstWindow = {.destroy = nullptr,
                                                .passive_open = fit_first_window};
u8_t g_first_window_id = LWIP_TCP_PCB_NUM_EXT_ARG_ID_INVALID;

// Whether `pbufs` more for `c` would take its peer past its share of
// received pbufs. Scans the table only when the bound says it might.
bool past_peer_rx_share(const Conn& c, std::size_t pbufs) {
  if (g_peer_rx_pbufs == 0 || g_rx_held_bound + pbufs <= g_peer_rx_pbufs) return false;
  return rx_held_by(c.peer.address.peer()) + pbufs > g_peer_rx_pbufs;
}

void release_conn(Conn* c) {
  rx_released(c->rx_pbufs);
  c->window_owed = 0;
  if (c->rx != nullptr) pbuf_free(c->rx);
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
  if (g_peer_share != 0 && connections_of(from_lwip(newpcb->remote_ip).peer()) >= g_peer_share) {
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
  if (g_first_window_id != LWIP_TCP_PCB_NUM_EXT_ARG_ID_INVALID) {
    c->window_owed = reinterpret_cast<std::uintptr_t>(tcp_ext_arg_get(newpcb, g_first_window_id));
    tcp_ext_arg_set(newpcb, g_first_window_id, nullptr);
  }
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

void set_tcp_peer_share(std::size_t connections) noexcept {
  g_peer_share = connections;
}

std::size_t tcp_peer_share() noexcept {
  return g_peer_share;
}

void set_tcp_peer_rx_pbufs(std::size_t pbufs) noexcept {
  g_peer_rx_pbufs = pbufs;
}

std::size_t tcp_peer_rx_pbufs() noexcept {
  return g_peer_rx_pbufs;
}

void set_tcp_peer_segments(std::size_t segments) noexcept {
  g_peer_segments = segments;
}

std::size_t tcp_peer_segments() noexcept {
  return g_peer_segments;
}

std::size_t tcp_segment_pool_size() noexcept {
  return MEMP_NUM_TCP_SEG;
}

std::size_t tcp_peer_rx_held(const IpAddress& address) noexcept {
  return rx_held_by(address.peer());
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

// Copies up to buf.size() of c's received bytes (it has some), frees what
// was consumed and opens the window by as much.
std::size_t take_received(Conn* c, std::span<std::byte> buf) {
  const auto want = static_cast<u16_t>(std::min<std::size_t>(buf.size(), c->rx->tot_len));
  const u16_t n = pbuf_copy_partial(c->rx, buf.data(), want, 0);
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
  return n;
}

}  // namespace

async::Task<std::size_t> TcpStream::read(std::span<std::byte> buf) noexcept {
  Conn* c = conn_;
  if (c == nullptr) co_return Unexpected(Error::kInvalidArgument);
  if (buf.empty()) co_return std::size_t{0};
  for (;;) {
    if (c->rx != nullptr) co_return take_received(c, buf);
    if (c->eof) co_return std::size_t{0};
    if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
    c->rx_event.reset();
    co_await c->rx_event.wait();
  }
}

Result<std::size_t> TcpStream::try_read(std::span<std::byte> buf) noexcept {
  Conn* c = conn_;
  if (c == nullptr) return Unexpected(Error::kInvalidArgument);
  if (c->rx != nullptr && !buf.empty()) return take_received(c, buf);
  if (c->eof || buf.empty()) return std::size_t{0};
  if (c->pcb == nullptr) return Unexpected(from_lwip_error(c->error));
  return std::size_t{0};
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

async::Task<std::size_t> TcpStream::write(std::span<const std::byte> data) noexcept {
  return send(data, true);
}

async::Task<std::size_t> TcpStream::queue(std::span<const std::byte> data) noexcept {
  return send(data, false);
}

namespace {

// Queues as much of `data` as lwIP takes now: the send buffer, the segment
// queue and lwIP's heap (ERR_MEM) bound it. The bytes taken, or lwIP's
// error. `more`: data follows, so no segment of this gets PSH.
// Segments `pcb` holds in lwIP's shared TCP_SEG pool: queued to send,
// sent and not yet acknowledged, and received out of order.
std::size_t segments_of(const tcp_pcb* pcb) {
  std::size_t n = 0;
  for (const tcp_seg* seg : {pcb->unsent, pcb->unacked, pcb->ooseq}) {
    for (; seg != nullptr; seg = seg->next) ++n;
  }
  return n;
}

// Whether one more segment for `pcb` would take its peer past its share of
// the segment pool. A scan only while the pool's use says it might.
bool past_peer_segment_share(const tcp_pcb* pcb) {
  if (g_peer_segments == 0 || lwip_stats.memp[MEMP_TCP_SEG]->used < g_peer_segments) return false;
  const IpAddress peer = from_lwip(pcb->remote_ip).peer();
  std::size_t held = 0;
  for (const Conn& c : g_conns) {
    if (c.in_use && c.pcb != nullptr && c.peer.address.peer() == peer) held += segments_of(c.pcb);
  }
  return held >= g_peer_segments;
}

Result<std::size_t> queue_what_fits(tcp_pcb* pcb, std::span<const std::byte> data, bool more) {
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
    const u8_t flags = TCP_WRITE_FLAG_COPY | (chunk < left || more ? TCP_WRITE_FLAG_MORE : 0);
    const err_t err = tcp_write(pcb, data.data() + done, chunk, flags);
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

async::Task<std::size_t> TcpStream::send(std::span<const std::byte> data, bool push) noexcept {
  Conn* c = conn_;
  if (c == nullptr) co_return Unexpected(Error::kInvalidArgument);
  std::size_t done = 0;
  while (done < data.size()) {
    if (c->pcb == nullptr) co_return Unexpected(from_lwip_error(c->error));
    if (c->tx_shut) co_return Unexpected(Error::kInvalidArgument);
    const auto taken = queue_what_fits(c->pcb, data.subspan(done), !push);
    if (!taken.ok()) co_return Unexpected(taken.error());
    done += *taken;
    if (done == data.size()) break;
    // No room (send buffer, segment queue or lwIP's heap): push what is
    // queued and wait for acknowledgements (sent), the poll timer or an error.
    c->tx_event.reset();
    tcp_output(c->pcb);
    co_await c->tx_event.wait();
  }
  if (push && c->pcb != nullptr) {
    if (auto pushed = push_queued(c->pcb); !pushed.ok()) co_return Unexpected(pushed.error());
  }
  co_return done;
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
    const auto taken = queue_what_fits(c->pcb, piece, left > 0 || !push);
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
  if (g_first_window_id == LWIP_TCP_PCB_NUM_EXT_ARG_ID_INVALID) {
    g_first_window_id = tcp_ext_arg_alloc_id();
  }
  tcp_ext_arg_set_callbacks(lpcb, g_first_window_id, &kFirstWindow);
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

// LWIP_HOOK_TCP_INPACKET_PCB (net/lwip/arch/hooks.h): every segment lwIP
// found a pcb for, before it reads it. A segment with data for one of our
// connections is dropped (never acknowledged, so the peer sends it again)
// when it would take its peer past its share of received pbufs; otherwise
// its pbufs join the bound. Segments for listeners and for connections not
// yet accepted (their arg is the listener's, or none) pass: a handshake's
// data is at most one segment per half-open connection.
extern "C" err_t starling_tcp_inpacket(struct tcp_pcb* pcb, struct pbuf* p) {
  using namespace starling::net;
  if (p == nullptr || p->tot_len == 0 || pcb->state == LISTEN) return ERR_OK;
  const std::size_t pbufs = pbuf_clen(p);
  if (is_conn(pcb->callback_arg) &&
      past_peer_rx_share(*static_cast<const Conn*>(pcb->callback_arg), pbufs)) {
    const Conn& to = *static_cast<const Conn*>(pcb->callback_arg);
    const IpAddress peer = to.peer.address.peer();
    // What the share refuses first is the peer's own out-of-order data: it
    // holds buffers without letting any connection advance (the peer's
    // SACK blocks never promised it was kept).
    bool evicted = false;
    for (Conn& c : g_conns) {
      if (c.in_use && c.pcb != nullptr && c.pcb->ooseq != nullptr &&
          c.peer.address.peer() == peer) {
        tcp_free_ooseq(c.pcb);
        ++g_stats.ooseq_evicted;
        evicted = true;
      }
    }
    // A connection that holds nothing takes its next segment whatever its
    // peer holds: its window (at least kWindowFloor) was offered within the
    // share's floors, and a zero-window probe refused for ever would end
    // the connection. At most one segment per connection past the share.
    const bool holds_nothing = rx_held(to) == 0;
    if (!holds_nothing && (!evicted || past_peer_rx_share(to, pbufs))) {
      ++g_stats.refused_peer_data;
      return ERR_MEM;
    }
  }
  g_rx_held_bound += pbufs;
  return ERR_OK;
}
