#ifndef STARLING_NET_FAIRNESS_PEER_SHARES_H_
#define STARLING_NET_FAIRNESS_PEER_SHARES_H_

#include <cstddef>
#include <span>
#include <string_view>

// Every per-peer share of the stack in one table (docs/hostile-peers.md,
// "One peer's shares"): what one peer (an IPv4 address, an IPv6 /64) may
// hold of a table the stack keeps anyway, the kernel command-line key that
// sets it, its default and bound, what the table holds, and the counter
// that counts its refusals. The boot-time parser, the console's report and
// the documentation's table all come from here; a host test checks the
// documentation against it. The shares themselves are enforced where the
// tables live (net/tcp, net/fairness/reassembly_share.h); HTTP's slot share
// is the httpd application's own option (`httpd.peer_slots=`, net/http).
namespace starling::net {

struct PeerShare {
  std::string_view key;      // "starling.tcp_peer_share": `key=N|off`
  std::string_view what;     // the console's name: "TCP connections per peer"
  std::string_view holds;    // the documentation's: "TCP connections it opened to us"
  std::string_view counter;  // the Prometheus counter of its refusals
  std::size_t fallback;      // the default
  std::size_t (*bound)() noexcept;  // the largest N: the whole table
  void (*set)(std::size_t) noexcept;
  std::size_t (*get)() noexcept;  // in force; 0 = off
};

std::span<const PeerShare> peer_shares() noexcept;

// Applies each `key=N|off` found in `bootargs`: N from 1 to the bound, off
// for no share. A malformed or repeated token is refused whole on the
// console, with the fix, and the default kept; the share in force is
// printed when one is given. `app` prefixes each console line.
void apply_peer_shares(std::string_view app, std::string_view bootargs);

}  // namespace starling::net

#endif  // STARLING_NET_FAIRNESS_PEER_SHARES_H_
