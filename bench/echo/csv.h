#ifndef STARLING_BENCH_ECHO_CSV_H_
#define STARLING_BENCH_ECHO_CSV_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bench/echo/rtt_stats.h"

// The ipbench CSV of docs/benchmarks.md: the header, and one row
// per requested rate. Idle_Cycles and Total_Cycles are empty when the peer
// has no utilisation service (e.g. Linux's echo).
namespace starling::bench {

inline constexpr std::string_view kCsvHeader =
    "Requested_Throughput,Receive_Throughput,Send_Throughput,Packet_Size,Minimum_RTT,"
    "Average_RTT,Maximum_RTT,Stdev_RTT,Median_RTT,Bad_Packets,Idle_Cycles,Total_Cycles";

struct Utilisation {
  std::uint64_t idle_cycles = 0;
  std::uint64_t total_cycles = 0;
};

struct CsvRow {
  double requested_bps = 0;
  double receive_bps = 0;
  double send_bps = 0;
  std::uint32_t packet_size = 0;
  RttStats rtt;
  std::uint64_t bad_packets = 0;
  std::optional<Utilisation> utilisation;
};

// One line, no trailing newline: throughputs as whole bits/s, RTTs in µs
// with three decimals.
std::string format_csv_row(const CsvRow& row);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_CSV_H_
