#include "bench/echo/csv.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace starling::bench {

std::string format_csv_row(const CsvRow& row) {
  char buffer[512];
  int n = std::snprintf(buffer, sizeof buffer,
                        "%.0f,%.0f,%.0f,%" PRIu32 ",%.3f,%.3f,%.3f,%.3f,%.3f,%" PRIu64 ",",
                        std::round(row.requested_bps), std::round(row.receive_bps),
                        std::round(row.send_bps), row.packet_size, row.rtt.min_us, row.rtt.avg_us,
                        row.rtt.max_us, row.rtt.stdev_us, row.rtt.median_us, row.bad_packets);
  std::string line(buffer, static_cast<std::size_t>(n));
  if (row.utilisation) {
    n = std::snprintf(buffer, sizeof buffer, "%" PRIu64 ",%" PRIu64, row.utilisation->idle_cycles,
                      row.utilisation->total_cycles);
    line.append(buffer, static_cast<std::size_t>(n));
  } else {
    line += ',';
  }
  return line;
}

}  // namespace starling::bench
