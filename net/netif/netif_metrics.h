#ifndef STARLING_NET_NETIF_NETIF_METRICS_H_
#define STARLING_NET_NETIF_NETIF_METRICS_H_

#include <array>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"
#include "net/netif/netif.h"

// A netif's metrics, each labelled nic="<driver>" (the board package names
// its driver): the NIC's own counters (hal::NicStats), the netif's (frames
// in and out, filters, wake-ups, checksum offload, drops at a full ring)
// and the RX pool's (driver buffers the stack holds and their bound,
// exhaustion, copies under pressure). The netif must outlive the registry's
// readers (the network bring-up keeps it for the image's life).
namespace starling::net {

template <hal::Nic N, std::size_t kRxPoolSize>
Result<void> register_netif_metrics(metrics::Registry& registry, Netif<N, kRxPoolSize>& netif,
                                    std::string_view nic_name) {
  using metrics::SampleSpec;
  using metrics::Type;
  using NetifT = Netif<N, kRxPoolSize>;
  const std::array<metrics::Label, metrics::kMaxLabels> labels{{{"nic", nic_name}}};
  const auto spec = [&](std::string_view name, std::string_view help, std::string_view line_key,
                        Type type = Type::kCounter) {
    return SampleSpec{.name = name,
                      .help = help,
                      .type = type,
                      .labels = labels,
                      .label_count = 1,
                      .line_key = line_key};
  };

  const hal::NicStats& nic = netif.nic().stats();
  const struct {
    SampleSpec spec;
    const std::uint64_t* value;
  } nic_entries[] = {
      {spec("starling_nic_rx_frames_total", "Frames the NIC received.", "nic_rx_frames"),
       &nic.rx_frames},
      {spec("starling_nic_rx_bytes_total", "Bytes the NIC received (Ethernet headers, no FCS).",
            ""),
       &nic.rx_bytes},
      {spec("starling_nic_rx_drops_total", "Received frames the NIC driver gave up.",
            "nic_rx_drops"),
       &nic.rx_drops},
      {spec("starling_nic_rx_errors_total", "Device misbehaviour on the RX queue.",
            "nic_rx_errors"),
       &nic.rx_errors},
      {spec("starling_nic_tx_frames_total", "Frames the NIC accepted to send.", "nic_tx_frames"),
       &nic.tx_frames},
      {spec("starling_nic_tx_bytes_total", "Bytes the NIC accepted to send.", ""), &nic.tx_bytes},
      {spec("starling_nic_tx_drops_total", "Frames lost after the NIC accepted them (a reset).",
            ""),
       &nic.tx_drops},
      {spec("starling_nic_tx_errors_total", "Device misbehaviour on the TX queue.", ""),
       &nic.tx_errors},
      {spec("starling_nic_tx_busy_total", "Sends that found the TX ring full.", "nic_tx_busy"),
       &nic.tx_busy},
      {spec("starling_nic_tx_in_place_total", "Frames sent from the RX buffer they answer.", ""),
       &nic.tx_in_place},
      {spec("starling_nic_tx_in_place_copied_total",
            "In-place sends copied instead (loan limit, buffer already sending).",
            "nic_tx_in_place_copied"),
       &nic.tx_in_place_copied},
      {spec("starling_nic_interrupts_total", "NIC interrupts taken.", "nic_interrupts"),
       &nic.interrupts},
      {spec("starling_nic_resets_total", "Device resets the NIC asked for and got.", "nic_resets"),
       &nic.resets},
      {spec("starling_nic_rx_filter_updates_total",
            "Times the NIC's multicast filter was programmed with the joined groups.",
            "nic_rx_filter_updates"),
       &nic.rx_filter_updates},
      {spec("starling_nic_rx_filter_fallbacks_total",
            "Times the NIC was left passing all multicast (too many groups, refused).",
            "nic_rx_filter_fallbacks"),
       &nic.rx_filter_fallbacks},
  };
  for (const auto& e : nic_entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  // The data-path self-test (a DWMAC's loopback frame at first power-on):
  // one family, the outcome a label.
  for (const auto& [result, value] :
       {std::pair{"passed", &nic.selftests_passed}, std::pair{"failed", &nic.selftests_failed}}) {
    SampleSpec s = spec("starling_nic_selftests_total",
                        "Data-path self-tests the NIC driver ran, by result.", "");
    s.labels[1] = {"result", result};
    s.label_count = 2;
    if (auto ok = registry.add(s, value); !ok.ok()) return ok;
  }

  const NetifStats& ns = netif.stats();
  const struct {
    SampleSpec spec;
    const std::uint64_t* value;
  } netif_entries[] = {
      {spec("starling_netif_rx_frames_total", "Frames given to lwIP.", "netif_rx_frames"),
       &ns.rx_frames},
      {spec("starling_netif_rx_batches_total", "Receive batches taken from the NIC.",
            "netif_rx_batches"),
       &ns.rx_batches},
      {spec("starling_netif_tx_frames_total", "Frames lwIP sent through the NIC.", ""),
       &ns.tx_frames},
      {spec("starling_netif_tx_in_place_total", "Replies sent from the RX buffer they answer.",
            "netif_tx_in_place"),
       &ns.tx_in_place},
      {spec("starling_netif_tx_busy_drops_total", "Frames dropped: the TX ring was full.",
            "netif_tx_busy_drops"),
       &ns.tx_busy_drops},
      {spec("starling_netif_tx_errors_total", "Frames the NIC refused otherwise.",
            "netif_tx_errors"),
       &ns.tx_errors},
      {spec("starling_netif_rx_runts_total", "Frames dropped: shorter than their header says.",
            "netif_rx_runts"),
       &ns.rx_runts},
      {spec("starling_netif_rx_bad_header_total", "Frames dropped: impossible IPv4 or IPv6 header.",
            "netif_rx_bad_header"),
       &ns.rx_bad_header},
      {spec("starling_netif_rx_multicast_total", "Frames dropped: a group not joined.",
            "netif_rx_multicast"),
       &ns.rx_multicast},
      {spec("starling_netif_rx_ipv6_long_chain_total",
            "Frames dropped: more IPv6 extension headers than the bound (6).",
            "netif_rx_long_chain"),
       &ns.rx_long_chain},
      {spec("starling_netif_rx_checksum_trusted_total",
            "Frames whose TCP/UDP checksum the NIC vouched for (lwIP's check skipped).",
            "netif_rx_checksum_trusted"),
       &ns.rx_checksum_trusted},
      {spec("starling_netif_wakeups_total", "Times the netif's task woke.", "netif_wakeups"),
       &ns.wakeups},
      {spec("starling_netif_wait_no_memory_total",
            "Waits without a coroutine frame (slept 1 ms instead).", ""),
       &ns.wait_no_memory},
  };
  for (const auto& e : netif_entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  if (auto ok = registry.add(
          spec("starling_netif_tx_checksum_offload",
               "1 if the NIC computes UDP/TCP checksums on transmit, else 0.",
               "netif_tx_checksum_offload", Type::kGauge),
          [](const void* c) -> std::uint64_t {
            auto& n = *const_cast<NetifT*>(static_cast<const NetifT*>(c));
            return (n.lwip_netif()->chksum_flags & NETIF_CHECKSUM_GEN_UDP) == 0 ? 1 : 0;
          },
          &netif);
      !ok.ok()) {
    return ok;
  }

  const auto& pool = netif.rx_pool();
  using PoolT = std::remove_cvref_t<decltype(pool)>;
  const auto& ps = pool.stats();
  if (auto ok = registry.add(
          spec("starling_rx_buffers_held",
               "Driver RX buffers the stack holds now (zero-copy pbufs).", "rx_wrappers_used",
               Type::kGauge),
          [](const void* c) -> std::uint64_t { return static_cast<const PoolT*>(c)->in_use(); },
          &pool);
      !ok.ok()) {
    return ok;
  }
  static constexpr std::uint64_t kPoolBound = PoolT::kCapacity;
  const struct {
    SampleSpec spec;
    const std::uint64_t* value;
  } pool_entries[] = {
      {spec("starling_rx_buffers", "RX buffer wrappers in all (the bound).", "", Type::kGauge),
       &kPoolBound},
      {spec("starling_rx_buffers_held_peak", "Most RX buffers the stack ever held at once.",
            "rx_wrappers_max", Type::kGauge),
       &ps.max_in_use},
      {spec("starling_rx_pool_exhausted_total", "Frames dropped: no free RX wrapper.",
            "rx_pool_exhausted"),
       &ps.exhausted},
      {spec("starling_rx_too_long_total", "Frames dropped: longer than a pbuf can say.",
            "rx_too_long"),
       &ps.too_long},
      {spec("starling_rx_copied_small_total", "Short frames copied, buffer given back at once.",
            "rx_copied_small"),
       &ps.copied_small},
      {spec("starling_rx_copied_pressure_total",
            "Frames copied because the stack held too many RX buffers.", "rx_copied_pressure"),
       &ps.copied_pressure},
      {spec("starling_rx_copy_failed_total",
            "Frames dropped: to be copied, but PBUF_POOL was empty.", "rx_copy_failed"),
       &ps.copy_failed},
  };
  for (const auto& e : pool_entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_NETIF_METRICS_H_
