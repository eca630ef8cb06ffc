#include "net/fairness/reassembly_share.h"

#include "lwip/opt.h"
#include "net/lwip/arch/hooks.h"

namespace starling::net {
namespace {

static_assert(kDefaultReassemblyPeerPbufs * 2 < IP_REASS_MAX_PBUFS,
              "one peer below half of reassembly's pbufs");
static_assert(kReassemblyPeerDatagrams * 2 < MEMP_NUM_REASSDATA,
              "one peer below half of reassembly's datagrams");

std::size_t g_peer_pbufs = kDefaultReassemblyPeerPbufs;
std::uint64_t g_refusals = 0;

}  // namespace

void set_reassembly_peer_pbufs(std::size_t pbufs) noexcept {
  g_peer_pbufs = pbufs;
}

std::size_t reassembly_peer_pbufs() noexcept {
  return g_peer_pbufs;
}

const std::uint64_t& reassembly_peer_refusals() noexcept {
  return g_refusals;
}

std::size_t reassembly_max_pbufs() noexcept {
  return IP_REASS_MAX_PBUFS;
}

}  // namespace starling::net

// lwIP asks with what the fragment's source would hold once it is queued;
// each "no" frees one of that source's datagrams or drops the fragment.
extern "C" int starling_ip4_reass_src_admit(u32_t pbufs, u32_t datagrams) {
  using starling::net::g_peer_pbufs;
  if (g_peer_pbufs == 0 ||
      (pbufs <= g_peer_pbufs && datagrams <= starling::net::kReassemblyPeerDatagrams)) {
    return 1;
  }
  ++starling::net::g_refusals;
  return 0;
}

// IPv6 (patch 0010): the same share and counter; lwIP has already decided
// who the peer is (a /64, or a link-local source's whole address).
extern "C" int starling_ip6_reass_src_admit(u32_t pbufs, u32_t datagrams) {
  return starling_ip4_reass_src_admit(pbufs, datagrams);
}
