#include "net/lwip/lwip_metrics.h"

#include <string_view>

#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"

namespace starling::net {
namespace {

using metrics::SampleSpec;
using metrics::Type;

// The pools worth watching: what a peer's traffic fills. `line_*` are the
// keys echo's stats line has always used for them (empty: not on it).
struct Pool {
  memp_t type;
  std::string_view label;
  std::string_view line_used;
  std::string_view line_max;
};
constexpr Pool kPools[] = {
    {MEMP_PBUF_POOL, "PBUF_POOL", "pbuf_pool_used", "pbuf_pool_max"},
    {MEMP_PBUF, "PBUF", "pbuf_ref_used", "pbuf_ref_max"},
    {MEMP_TCP_PCB, "TCP_PCB", "tcp_pcbs_used", "tcp_pcbs_max"},
    {MEMP_TCP_PCB_LISTEN, "TCP_PCB_LISTEN", "", ""},
    {MEMP_TCP_SEG, "TCP_SEG", "tcp_segs_used", "tcp_segs_max"},
    {MEMP_UDP_PCB, "UDP_PCB", "", ""},
    {MEMP_REASSDATA, "REASSDATA", "reass_used", ""},
    {MEMP_FRAG_PBUF, "FRAG_PBUF", "", ""},
    {MEMP_ARP_QUEUE, "ARP_QUEUE", "", ""},
    {MEMP_SYS_TIMEOUT, "SYS_TIMEOUT", "", ""},
    // IPv6 (docs/ipv6.md): packets waiting for a neighbour, datagrams being
    // reassembled, multicast groups joined.
    {MEMP_ND6_QUEUE, "ND6_QUEUE", "nd6_queue_used", ""},
    {MEMP_IP6_REASSDATA, "IP6_REASSDATA", "reass6_used", ""},
    {MEMP_MLD6_GROUP, "MLD6_GROUP", "", ""},
};

const stats_mem& pool_stats(const void* c) {
  return *lwip_stats.memp[static_cast<const Pool*>(c)->type];
}

std::uint64_t list_length(const tcp_pcb* pcb) {
  std::uint64_t n = 0;
  for (; pcb != nullptr; pcb = pcb->next) ++n;
  return n;
}

}  // namespace

Result<void> register_lwip_metrics(metrics::Registry& registry) {
  for (const Pool& pool : kPools) {
    const auto labels = std::array<metrics::Label, metrics::kMaxLabels>{{{"pool", pool.label}}};
    const struct {
      SampleSpec spec;
      metrics::Reader read;
    } entries[] = {
        {{.name = "starling_lwip_pool_size",
          .help = "Entries in the lwIP memp pool (its bound).",
          .type = Type::kGauge,
          .labels = labels,
          .label_count = 1},
         [](const void* c) -> std::uint64_t { return pool_stats(c).avail; }},
        {{.name = "starling_lwip_pool_used",
          .help = "Entries of the lwIP memp pool in use now.",
          .type = Type::kGauge,
          .labels = labels,
          .label_count = 1,
          .line_key = pool.line_used},
         [](const void* c) -> std::uint64_t { return pool_stats(c).used; }},
        {{.name = "starling_lwip_pool_peak",
          .help = "Most entries of the lwIP memp pool ever in use at once.",
          .type = Type::kGauge,
          .labels = labels,
          .label_count = 1,
          .line_key = pool.line_max},
         [](const void* c) -> std::uint64_t { return pool_stats(c).max; }},
        {{.name = "starling_lwip_pool_failures_total",
          .help = "Allocations the lwIP memp pool refused: it was empty.",
          .labels = labels,
          .label_count = 1},
         [](const void* c) -> std::uint64_t { return pool_stats(c).err; }},
    };
    for (const auto& e : entries) {
      if (auto ok = registry.add(e.spec, e.read, &pool); !ok.ok()) return ok;
    }
  }
  const struct {
    SampleSpec spec;
    metrics::Reader read;
  } entries[] = {
      {{.name = "starling_lwip_heap_bytes",
        .help = "Bytes of lwIP's heap (PBUF_RAM buffers) in use now.",
        .type = Type::kGauge},
       [](const void*) -> std::uint64_t { return lwip_stats.mem.used; }},
      {{.name = "starling_lwip_heap_bytes_peak",
        .help = "Most bytes of lwIP's heap ever in use at once.",
        .type = Type::kGauge,
        .line_key = "lwip_heap_max_bytes"},
       [](const void*) -> std::uint64_t { return lwip_stats.mem.max; }},
      {{.name = "starling_lwip_heap_size_bytes",
        .help = "Bytes of lwIP's heap (its bound).",
        .type = Type::kGauge},
       [](const void*) -> std::uint64_t { return lwip_stats.mem.avail; }},
      {{.name = "starling_lwip_heap_failures_total", .help = "Allocations lwIP's heap refused."},
       [](const void*) -> std::uint64_t { return lwip_stats.mem.err; }},
      // lwIP keeps no counter of these: walking its lists is the only way
      // (here, in the stack's own port, so no application needs tcp_priv.h).
      {{.name = "starling_tcp_pcbs_active",
        .help = "TCP connections on lwIP's active list (SYN-RCVD to LAST-ACK).",
        .type = Type::kGauge,
        .line_key = "tcp_active"},
       [](const void*) { return list_length(tcp_active_pcbs); }},
      {{.name = "starling_tcp_pcbs_time_wait",
        .help = "TCP connections in TIME-WAIT.",
        .type = Type::kGauge,
        .line_key = "tcp_time_wait"},
       [](const void*) { return list_length(tcp_tw_pcbs); }},
  };
  for (const auto& e : entries) {
    if (auto ok = registry.add(e.spec, e.read, nullptr); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::net
