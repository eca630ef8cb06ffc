#ifndef STARLING_NET_TCP_PEER_SHARE_H_
#define STARLING_NET_TCP_PEER_SHARE_H_

#include <cstddef>

#include "lwip/tcp.h"
#include "net/address/ip_address.h"
#include "net/tcp/conn.h"

// Internal to net/tcp: one peer's three TCP shares (tcp.h: connections,
// received pbufs, segments; net/fairness/peer_shares.h declares them for
// the command line and the documentation), kept over the connection table.
// tcp.cc calls these at the points TCP's bookkeeping changes; each is one
// comparison unless the table is near a share (then a scan of the table).
namespace starling::net::detail {

// The shares in force (0: off) and an upper bound on the received pbufs all
// connections hold together (unread, out of order, refused): each admitted
// segment adds its pbufs, each read takes away what it freed, and a scan of
// the table sets it to the exact figure (out-of-order and refused data lwIP
// frees by itself are only found then). While it stays within one peer's
// share no peer can be past it, so the per-packet cost is a comparison.
extern std::size_t g_peer_share;
extern std::size_t g_peer_rx_pbufs;
extern std::size_t g_peer_segments;
extern std::size_t g_rx_held_bound;

// The receive window as the pbufs full-size segments into it would take.
inline constexpr std::size_t kWindowPbufs = (TCP_WND + TCP_MSS - 1) / TCP_MSS;

// A new connection from `peer` would take it past its share of connections.
bool past_connection_share(const IpAddress& peer);

// Takes `pbufs` the application consumed (or a close freed) off the bound.
inline void rx_released(std::size_t pbufs) {
  g_rx_held_bound = pbufs < g_rx_held_bound ? g_rx_held_bound - pbufs : 0;
}

// Whether every connection's whole window plus every pbuf held fits one
// share: then no peer can be committed past it, and nothing is scanned (one
// connection, or two).
inline bool windows_fit_any_share() {
  return g_peer_rx_pbufs == 0 ||
         g_rx_held_bound + g_stats.connections_in_use * kWindowPbufs <= g_peer_rx_pbufs;
}

// Gives `c`'s receive window back what its reader consumed, as far as its
// peer's share has room (never leaving it below the floor of two segments).
void grant_window(Conn& c);
// The same for every connection of `peer` owed a window, `first` (if
// given) before the others.
void grant_peer(const IpAddress& peer, Conn* first = nullptr);

// A listener's new connections get a first window their peer's share has
// room for, set before the SYN-ACK offers it; take_first_window_owed() then
// hands the rest to the accepted connection as owed.
void offer_first_windows(tcp_pcb* listener);
std::size_t take_first_window_owed(tcp_pcb* accepted);

// Whether one more segment for `pcb` would take its peer past its share of
// lwIP's segment pool. A scan only while the pool's use says it might.
bool past_peer_segment_share(const tcp_pcb* pcb);

// Received pbufs `peer` holds (every connection of it); sets the bound to
// the exact total.
std::size_t rx_held_by(const IpAddress& peer);

}  // namespace starling::net::detail

#endif  // STARLING_NET_TCP_PEER_SHARE_H_
