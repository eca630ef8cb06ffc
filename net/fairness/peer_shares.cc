#include "net/fairness/peer_shares.h"

#include <cstdint>

#include "kernel/console/console.h"
#include "kernel/lib/bootargs.h"
#include "net/fairness/reassembly_share.h"
#include "net/tcp/tcp.h"

namespace starling::net {
namespace {

using console::print;

std::size_t tcp_connection_table() noexcept {
  return tcp_stats().pool_size;
}
std::size_t tcp_rx_pbuf_bound() noexcept {
  return kMaxTcpPeerRxPbufs;
}

constexpr PeerShare kShares[] = {
    {.key = "starling.tcp_peer_share",
     .what = "TCP connections per peer",
     .holds = "TCP connections it opened to us",
     .counter = "starling_tcp_refused_peer_share_total",
     .fallback = kDefaultTcpPeerShare,
     .bound = tcp_connection_table,
     .set = set_tcp_peer_share,
     .get = tcp_peer_share},
    {.key = "starling.tcp_peer_rx_pbufs",
     .what = "received TCP buffers per peer",
     .holds = "received TCP pbufs: unread, out of order, refused and kept",
     .counter = "starling_tcp_refused_peer_data_total",
     .fallback = kDefaultTcpPeerRxPbufs,
     .bound = tcp_rx_pbuf_bound,
     .set = set_tcp_peer_rx_pbufs,
     .get = tcp_peer_rx_pbufs},
    {.key = "starling.tcp_peer_segments",
     .what = "TCP segments per peer",
     .holds = "TCP segment descriptors: to send, in flight, out of order",
     .counter = "starling_tcp_peer_segment_waits_total",
     .fallback = kDefaultTcpPeerSegments,
     .bound = tcp_segment_pool_size,
     .set = set_tcp_peer_segments,
     .get = tcp_peer_segments},
    {.key = "starling.reass_peer_share",
     .what = "reassembly buffers per peer (IPv4 and IPv6)",
     .holds = "IP reassembly pbufs (and 7 datagrams), each family's tables",
     .counter = "starling_ip_reass_refused_peer_total",
     .fallback = kDefaultReassemblyPeerPbufs,
     .bound = reassembly_max_pbufs,
     .set = set_reassembly_peer_pbufs,
     .get = reassembly_peer_pbufs},
};

void print_number(std::size_t n) {
  console::print_dec(static_cast<std::int64_t>(n));
}

void apply(std::string_view app, std::string_view bootargs, const PeerShare& share) {
  const BootargValue arg = bootarg_value(bootargs, share.key);
  if (!arg.found) return;
  std::uint64_t n = 0;
  if (!arg.repeated && arg.value == "off") {
    share.set(0);
  } else if (!arg.repeated && parse_bootarg_number(arg.value, 1, share.bound(), &n)) {
    share.set(static_cast<std::size_t>(n));
  } else {
    print(app);
    print(": ignoring ");
    print(share.key);
    if (arg.repeated) {
      print("=: given twice");
    } else {
      print("=: not 1 to ");
      print_number(share.bound());
      print(" or off");
    }
    print("; fix: ");
    print(share.key);
    print("=");
    print_number(share.fallback);
    print("; keeping ");
    print_number(share.get());
    print("\n");
    return;
  }
  print(app);
  print(": ");
  print(share.what);
  print(": ");
  if (share.get() == 0) {
    print("no limit (");
    print(share.key);
    print("=off)\n");
  } else {
    print_number(share.get());
    print(" of ");
    print_number(share.bound());
    print(" (");
    print(share.key);
    print("=)\n");
  }
}

}  // namespace

std::span<const PeerShare> peer_shares() noexcept {
  return kShares;
}

void apply_peer_shares(std::string_view app, std::string_view bootargs) {
  for (const PeerShare& share : kShares) apply(app, bootargs, share);
}

}  // namespace starling::net
