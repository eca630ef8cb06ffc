#ifndef STARLING_NET_FAIRNESS_REASSEMBLY_SHARE_H_
#define STARLING_NET_FAIRNESS_REASSEMBLY_SHARE_H_

#include <cstddef>
#include <cstdint>

// One peer's share of IP reassembly (docs/hostile-peers.md): the pbufs and
// datagrams one source may hold waiting for their other fragments: an IPv4
// address, or an IPv6 /64 (a link-local source by its whole address). lwIP
// asks for every fragment (LWIP_HOOK_IP4_REASS_SRC_ADMIT and
// LWIP_HOOK_IP6_REASS_SRC_ADMIT, Starling patches 0006 and 0010 in
// net/lwip/patches; each family's reassembly has its own tables); past
// the share the source's own oldest datagram is freed, or its fragment
// dropped, and each such refusal is counted. Every other source's datagrams
// stay. The defaults keep one peer below half of each of lwIP's two tables
// (IP_REASS_MAX_PBUFS 64, MEMP_NUM_REASSDATA 16: net/lwip/lwipopts.h).
// The bookkeeping is lwIP's own list of datagrams: nothing a peer can grow.
namespace starling::net {

inline constexpr std::size_t kDefaultReassemblyPeerPbufs = 31;
inline constexpr std::size_t kReassemblyPeerDatagrams = 7;

// Sets the pbufs one peer may hold (1 to IP_REASS_MAX_PBUFS), or 0 for no
// share (then only lwIP's whole-table bounds apply, and the datagram share
// with it). Set from the kernel command line by
// `starling.reass_peer_share=N|off` (net/fairness/peer_shares.h).
void set_reassembly_peer_pbufs(std::size_t pbufs) noexcept;
std::size_t reassembly_peer_pbufs() noexcept;

// Fragments dropped or datagrams freed because their source held its share.
const std::uint64_t& reassembly_peer_refusals() noexcept;

// The whole-table bounds the share is a part of (lwipopts.h).
std::size_t reassembly_max_pbufs() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_FAIRNESS_REASSEMBLY_SHARE_H_
