#include "net/tcp/peer_share.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"  // tcp_free_ooseq
#include "lwip/stats.h"
#include "net/address/ip_address_lwip.h"

namespace starling::net::detail {

static_assert(kDefaultTcpPeerShare < MEMP_NUM_TCP_PCB / 2, "one peer below half the pool");
std::size_t g_peer_share = kDefaultTcpPeerShare;
std::size_t g_peer_rx_pbufs = kDefaultTcpPeerRxPbufs;
static_assert(kDefaultTcpPeerSegments * 2 < MEMP_NUM_TCP_SEG, "one peer below half the segments");
std::size_t g_peer_segments = kDefaultTcpPeerSegments;
std::size_t g_rx_held_bound = 0;

namespace {

// Connections `peer` (IpAddress::peer(): an IPv4 address, an IPv6 /64)
// opened to us and holds now.
std::size_t connections_of(const IpAddress& peer) {
  std::size_t n = 0;
  for (const Conn& c : g_conns) {
    if (c.in_use && c.inbound && c.peer.address.peer() == peer) ++n;
  }
  return n;
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

}  // namespace

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

namespace {

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

}  // namespace

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
void grant_peer(const IpAddress& peer, Conn* first) {
  if (first != nullptr) grant_window(*first);
  for (Conn& c : g_conns) {
    if (&c != first && c.in_use && c.window_owed != 0 && c.peer.address.peer() == peer) {
      grant_window(c);
    }
  }
}

namespace {

// A new connection's first window, set before its SYN-ACK offers it
// (lwIP's passive-open callback, LWIP_TCP_PCB_NUM_EXT_ARGS): what the peer's
// share has room for, counting the connections it has and the ones whose
// handshakes are still under way (their pcbs are not ours yet), at least
// kWindowFloor and at most TCP_WND. Cut later, the window would trim what
// the peer had already sent into it: a loss in all but name.
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

// Segments `pcb` holds in lwIP's shared TCP_SEG pool: queued to send,
// sent and not yet acknowledged, and received out of order.
std::size_t segments_of(const tcp_pcb* pcb) {
  std::size_t n = 0;
  for (const tcp_seg* seg : {pcb->unsent, pcb->unacked, pcb->ooseq}) {
    for (; seg != nullptr; seg = seg->next) ++n;
  }
  return n;
}

}  // namespace

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

bool past_connection_share(const IpAddress& peer) {
  return g_peer_share != 0 && connections_of(peer) >= g_peer_share;
}

void offer_first_windows(tcp_pcb* listener) {
  if (g_first_window_id == LWIP_TCP_PCB_NUM_EXT_ARG_ID_INVALID) {
    g_first_window_id = tcp_ext_arg_alloc_id();
  }
  tcp_ext_arg_set_callbacks(listener, g_first_window_id, &kFirstWindow);
}

std::size_t take_first_window_owed(tcp_pcb* accepted) {
  if (g_first_window_id == LWIP_TCP_PCB_NUM_EXT_ARG_ID_INVALID) return 0;
  const auto owed = reinterpret_cast<std::uintptr_t>(tcp_ext_arg_get(accepted, g_first_window_id));
  tcp_ext_arg_set(accepted, g_first_window_id, nullptr);
  return owed;
}

}  // namespace starling::net::detail

namespace starling::net {

using detail::g_peer_rx_pbufs;
using detail::g_peer_segments;
using detail::g_peer_share;

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
  return detail::rx_held_by(address.peer());
}

}  // namespace starling::net

// LWIP_HOOK_TCP_INPACKET_PCB (net/lwip/arch/hooks.h): every segment lwIP
// found a pcb for, before it reads it. A segment with data for one of our
// connections is dropped (never acknowledged, so the peer sends it again)
// when it would take its peer past its share of received pbufs; otherwise
// its pbufs join the bound. Segments for listeners and for connections not
// yet accepted (their arg is the listener's, or none) pass: a handshake's
// data is at most one segment per half-open connection.
extern "C" err_t starling_tcp_inpacket(struct tcp_pcb* pcb, u32_t seqno, struct pbuf* p) {
  using namespace starling::net;          // NOLINT(google-build-using-namespace): a C hook
  using namespace starling::net::detail;  // NOLINT(google-build-using-namespace)
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
    // the connection.
    const std::size_t holds = rx_held(to);
    // Nor is the segment at the window's left edge refused while its
    // connection holds less than its window's floor (issue 47): it is the
    // one that lets the connection advance, and refused it came back only
    // after the peer's retransmission timeouts, doubling each time (4.4 s
    // gaps at the 8% setting, four streams from one peer, while the
    // siblings' data held the share). So a connection always moves, and
    // the share is exceeded by at most kWindowFloor's segments a
    // connection; what it refuses beyond is out-of-order data (freed above
    // or dropped here) and the data of connections whose readers lag.
    const bool advances = holds < kWindowFloor / TCP_MSS && TCP_SEQ_LEQ(seqno, pcb->rcv_nxt) &&
                          TCP_SEQ_GT(seqno + p->tot_len, pcb->rcv_nxt);
    if (holds != 0 && !advances && (!evicted || past_peer_rx_share(to, pbufs))) {
      ++g_stats.refused_peer_data;
      return ERR_MEM;
    }
  }
  g_rx_held_bound += pbufs;
  return ERR_OK;
}
