#ifndef STARLING_NET_FAIRNESS_PEER_SHARES_H_
#define STARLING_NET_FAIRNESS_PEER_SHARES_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "net/fairness/reassembly_share.h"
#include "net/tcp/tcp.h"

// Every per-peer share of the stack declared once (docs/hostile-peers.md,
// "One peer's shares"): what one peer (an IPv4 address, an IPv6 /64) may
// hold of a table the stack keeps anyway, the kernel command-line key that
// sets it, its default and bound, what the table holds, and the counter of
// its refusals. The boot-time parser and its console lines come from this
// list, and a host test checks the documentation's table against it. The
// shares themselves are enforced where the tables live (net/tcp,
// reassembly_share.h); HTTP's slot share is the httpd application's own
// option (`httpd.peer_slots=`, net/http).
//
// X(key, what, holds, counter, default, bound, set, get):
//   key      `key=N|off` on the kernel command line
//   what     the console's name for it
//   holds    the documentation's: what one peer may hold
//   counter  the Prometheus counter of its refusals
//   default  in force until the command line says otherwise
//   bound    the largest N (the whole table), a function
//   set/get  the share in force (0: off)
#define STARLING_PEER_SHARES(X)                                                                \
  X("starling.tcp_peer_share", "TCP connections per peer", "TCP connections it opened to us",  \
    "starling_tcp_refused_peer_share_total", kDefaultTcpPeerShare, tcp_connection_table,       \
    set_tcp_peer_share, tcp_peer_share)                                                        \
  X("starling.tcp_peer_rx_pbufs", "received TCP buffers per peer",                             \
    "received TCP pbufs: unread, out of order, refused and kept",                              \
    "starling_tcp_refused_peer_data_total", kDefaultTcpPeerRxPbufs, tcp_rx_pbuf_bound,         \
    set_tcp_peer_rx_pbufs, tcp_peer_rx_pbufs)                                                  \
  X("starling.tcp_peer_segments", "TCP segments per peer",                                     \
    "TCP segment descriptors: to send, in flight, out of order",                               \
    "starling_tcp_peer_segment_waits_total", kDefaultTcpPeerSegments, tcp_segment_pool_size,   \
    set_tcp_peer_segments, tcp_peer_segments)                                                  \
  X("starling.reass_peer_share", "reassembly buffers per peer (IPv4 and IPv6)",                \
    "IP reassembly pbufs (and 7 datagrams), each family's tables",                             \
    "starling_ip_reass_refused_peer_total", kDefaultReassemblyPeerPbufs, reassembly_max_pbufs, \
    set_reassembly_peer_pbufs, reassembly_peer_pbufs)

namespace starling::net {

// The bounds the list names that are not a function elsewhere.
inline std::size_t tcp_connection_table() noexcept {
  return tcp_stats().pool_size;
}
inline std::size_t tcp_rx_pbuf_bound() noexcept {
  return kMaxTcpPeerRxPbufs;
}

// What the image needs of each share (the documentation's words stay out
// of it: kPeerShareDocs below is only built where it is used).
struct PeerShare {
  std::string_view key;
  std::string_view what;
  std::size_t fallback;
  std::size_t (*bound)() noexcept;
  void (*set)(std::size_t) noexcept;
  std::size_t (*get)() noexcept;
};

std::span<const PeerShare> peer_shares() noexcept;

// The documentation's columns, for the test that checks the page.
struct PeerShareDoc {
  std::string_view key;
  std::string_view holds;
  std::string_view counter;
};

#define STARLING_PEER_SHARE_DOC(key, what, holds, counter, fallback, bound, set, get) \
  PeerShareDoc{key, holds, counter},
inline constexpr PeerShareDoc kPeerShareDocs[] = {STARLING_PEER_SHARES(STARLING_PEER_SHARE_DOC)};
#undef STARLING_PEER_SHARE_DOC

// Applies each `key=N|off` found in `bootargs`: N from 1 to the bound, off
// for no share. A malformed or repeated token is refused whole on the
// console, with the fix, and the default kept; the share in force is
// printed when one is given. `app` prefixes each console line.
void apply_peer_shares(std::string_view app, std::string_view bootargs);

}  // namespace starling::net

#endif  // STARLING_NET_FAIRNESS_PEER_SHARES_H_
