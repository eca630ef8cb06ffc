#ifndef STARLING_KERNEL_METRICS_STATS_LINE_H_
#define STARLING_KERNEL_METRICS_STATS_LINE_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "kernel/metrics/registry.h"

// The registry as one line, `PREFIX key=value key=value ...\n`: every sample
// with a line key, in registration order. The echo application's stats
// reply (one UDP datagram that the benchmark and the tests read) is this
// rendering. A pair that does not fit is left off, not cut; the newline
// always fits when `out` has room for the prefix and it.
namespace starling::metrics {

// `only`: when not empty, just the samples whose line key starts with one
// of these (a client that wants a few counters of a line grown past one
// datagram: echo's `STARLING-STATS nd6_ icmp6_`).
std::size_t render_stats_line(const Registry& registry, std::string_view prefix,
                              std::span<char> out, std::span<const std::string_view> only = {});

}  // namespace starling::metrics

#endif  // STARLING_KERNEL_METRICS_STATS_LINE_H_
