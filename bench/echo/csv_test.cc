#include "bench/echo/csv.h"

#include <gtest/gtest.h>

#include <string>

namespace starling::bench {
namespace {

int columns(const std::string& line) {
  int n = 1;
  for (char c : line) n += c == ',';
  return n;
}

TEST(Csv, HeaderIsExactlyBenchmarkMd) {
  EXPECT_EQ(kCsvHeader,
            "Requested_Throughput,Receive_Throughput,Send_Throughput,Packet_Size,Minimum_RTT,"
            "Average_RTT,Maximum_RTT,Stdev_RTT,Median_RTT,Bad_Packets,Idle_Cycles,Total_Cycles");
  EXPECT_EQ(columns(std::string(kCsvHeader)), 12);
}

TEST(Csv, RowWithUtilisation) {
  CsvRow row;
  row.requested_bps = 100e6;
  row.receive_bps = 99'999'999.6;
  row.send_bps = 100'000'000.4;
  row.packet_size = 1472;
  row.rtt = {12.5, 20.25, 300.0, 4.125, 19.0, 10};
  row.bad_packets = 3;
  row.utilisation = Utilisation{123, 4567};
  const std::string line = format_csv_row(row);
  EXPECT_EQ(line,
            "100000000,100000000,100000000,1472,12.500,20.250,300.000,4.125,19.000,3,123,4567");
  EXPECT_EQ(columns(line), 12);
}

TEST(Csv, RowWithoutUtilisationHasEmptyColumns) {
  CsvRow row;
  row.requested_bps = 1e6;
  row.packet_size = 1460;
  const std::string line = format_csv_row(row);
  EXPECT_EQ(line, "1000000,0,0,1460,0.000,0.000,0.000,0.000,0.000,0,,");
  EXPECT_EQ(columns(line), 12);
}

}  // namespace
}  // namespace starling::bench
