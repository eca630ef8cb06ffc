#ifndef STARLING_BENCH_ECHO_OPTIONS_H_
#define STARLING_BENCH_ECHO_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// The load generator's command line (loadgen --help prints kUsage). Parsing
// is strict: an unknown flag, a missing or malformed value, or options that
// cannot go together give an error naming the flag (loadgen exits 2).
namespace starling::bench {

enum class Transport { kUdp, kTcp, kRaw };

struct Options {
  Transport transport = Transport::kUdp;
  std::string target;  // IPv4 of the echo server
  std::uint16_t port = 1235;
  std::vector<double> rates_bps;  // UDP (or TCP) payload bits/s, one CSV row each
  std::uint32_t size = 0;         // payload bytes; 0 = 1472 (UDP, raw) / 1460 (TCP)
  std::uint64_t samples = 2000;
  std::uint64_t warmup = 200;
  std::uint64_t cooldown = 200;
  double max_seconds = 30;  // per rate, sending and draining together
  std::uint64_t drain_ms = 500;
  std::uint16_t util_port = 1237;  // 0: no utilisation service
  bool require_util = false;
  bool stats = false;            // STARLING-STATS around each rate
  bool closed_loop = false;      // one packet in flight (the cost gate's runs)
  std::string stats_file;        // derived figures go here (else stderr)
  std::uint16_t stats_port = 0;  // 0 until parsed: --port (udp) or 1235 (tcp)
  std::string iface;             // raw: the interface the guest is on
  std::string dst_mac;           // raw: the guest's MAC
  std::string src_ip;            // raw: our IPv4 in the frames we build
  bool probe = false;            // boot-to-first-echo instead of a sweep
  std::uint64_t since_realtime_ns = 0;
  double probe_timeout_s = 30;
  bool header = true;
  bool help = false;
};

struct ParsedOptions {
  std::optional<Options> options;
  std::string error;  // set when options is nullopt
};

// args excludes argv[0].
ParsedOptions parse_options(std::span<const std::string_view> args);

// "100M", "1.5G", "64k", "20000000": bits/s, decimal prefixes; nullopt if
// not a positive number with an optional k/M/G suffix.
std::optional<double> parse_rate(std::string_view text);

extern const char kUsage[];

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_OPTIONS_H_
