#ifndef STARLING_KERNEL_METRICS_PROMETHEUS_H_
#define STARLING_KERNEL_METRICS_PROMETHEUS_H_

#include <cstddef>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// The registry in Prometheus's text exposition format, version 0.0.4 (the
// Content-Type an HTTP server gives it: kContentType): per family
//
//   # HELP starling_nic_rx_frames_total Frames the NIC received.
//   # TYPE starling_nic_rx_frames_total counter
//   starling_nic_rx_frames_total{nic="virtio-net"} 1234
//
// families in registration order, each family's samples together (a
// family's samples may have been registered apart). HELP text escapes \
// and newlines, label values \, " and newlines, as the format says.
namespace starling::metrics {

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// Writes into `out`; the bytes written, or kNoMemory when the page does not
// fit (nothing a scraper could parse is promised then).
Result<std::size_t> render_prometheus(const Registry& registry, std::span<char> out);

}  // namespace starling::metrics

#endif  // STARLING_KERNEL_METRICS_PROMETHEUS_H_
