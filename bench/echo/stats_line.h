#ifndef STARLING_BENCH_ECHO_STATS_LINE_H_
#define STARLING_BENCH_ECHO_STATS_LINE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

// The guests' counter lines ("STARLING-STATS key=value key=value ...", from
// apps/echo over UDP and apps/reflector over a raw frame), and the figures
// the benchmark derives from two of them around a run.
namespace starling::bench {

using StatsLine = std::map<std::string, std::uint64_t, std::less<>>;

// nullopt unless the text starts with "STARLING-STATS" and every field after
// it is key=<decimal>.
std::optional<StatsLine> parse_stats_line(std::string_view text);

// after[key] - before[key]; nullopt if either lacks it or it went backwards.
std::optional<std::uint64_t> stats_delta(const StatsLine& before, const StatsLine& after,
                                         std::string_view key);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_STATS_LINE_H_
