#include "net/tcp/tcp_metrics.h"

#include "net/tcp/tcp.h"

namespace starling::net {

Result<void> register_tcp_metrics(metrics::Registry& registry) {
  using metrics::Type;
  const TcpStats& s = tcp_stats();
  const struct {
    metrics::SampleSpec spec;
    const std::uint64_t* value;
  } entries[] = {
      {{.name = "starling_tcp_connections",
        .help = "TCP connection slots held now.",
        .type = Type::kGauge,
        .line_key = "tcp_conns"},
       &s.connections_in_use},
      {{.name = "starling_tcp_connection_slots",
        .help = "TCP connection slots in all (the bound).",
        .type = Type::kGauge},
       &s.pool_size},
      {{.name = "starling_tcp_accepted_total",
        .help = "TCP connections handed to a listener.",
        .line_key = "tcp_accepted"},
       &s.accepted},
      {{.name = "starling_tcp_refused_backlog_total",
        .help = "TCP connections aborted: the listener's backlog was full.",
        .line_key = "tcp_refused_backlog"},
       &s.refused_backlog},
      {{.name = "starling_tcp_refused_slots_total",
        .help = "TCP connections aborted: no connection slot or lwIP PCB.",
        .line_key = "tcp_refused_pool"},
       &s.refused_pool},
      {{.name = "starling_tcp_refused_peer_share_total",
        .help = "TCP connections aborted: that peer already held its share of the pool "
                "(starling.tcp_peer_share=).",
        .line_key = "tcp_refused_peer"},
       &s.refused_peer_share},
      {{.name = "starling_tcp_resets_total",
        .help = "TCP connections that ended in a reset.",
        .line_key = "tcp_resets"},
       &s.resets},
      {{.name = "starling_tcp_errors_total", .help = "TCP connection errors (resets included)."},
       &s.errors},
      {{.name = "starling_tcp_close_aborts_total",
        .help = "TCP closes that fell back to an abort."},
       &s.close_aborts},
      {{.name = "starling_tcp_refused_unread_total",
        .help = "TCP segments refused: the reader held too much unread data.",
        .line_key = "tcp_rx_refused_unread"},
       &s.refused_unread},
      {{.name = "starling_tcp_refused_peer_data_total",
        .help = "TCP segments dropped unread: their peer held its share of received buffers "
                "(starling.tcp_peer_rx_pbufs=).",
        .line_key = "tcp_rx_refused_peer"},
       &s.refused_peer_data},
      {{.name = "starling_tcp_window_withheld_total",
        .help = "TCP receive windows kept smaller than the reader made room for: the peer "
                "held or was offered its share (starling.tcp_peer_rx_pbufs=)."},
       &s.window_withheld},
      {{.name = "starling_tcp_ooseq_evicted_total",
        .help = "TCP out-of-order queues freed because their peer reached its share."},
       &s.ooseq_evicted},
      {{.name = "starling_tcp_peer_segment_waits_total",
        .help = "TCP writes that waited: their peer held its share of the segment pool "
                "(starling.tcp_peer_segments=).",
        .line_key = "tcp_tx_peer_waits"},
       &s.peer_segment_waits},
      {{.name = "starling_tcp_tx_referenced_total",
        .help = "TCP segment pieces sent from the received buffer they arrived in (no copy)."},
       &s.tx_referenced},
      {{.name = "starling_tcp_tx_reference_fallbacks_total",
        .help = "TCP writes of received bytes copied after all: no reference to their buffer was "
                "free."},
       &s.tx_reference_fallbacks},
      {{.name = "starling_tcp_tx_references",
        .help = "Received buffers that TCP segments not yet acknowledged hold now (at most 64).",
        .type = Type::kGauge},
       &s.tx_references_held},
  };
  for (const auto& e : entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::net
