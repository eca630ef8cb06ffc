#include "bench/echo/options.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace starling::bench {

const char kUsage[] =
    R"(loadgen: the ipbench-style echo load generator (docs/benchmarks.md).
Prints the CSV header and one row per rate on stdout; notes on stderr.

  loadgen --target IP --rates R1,R2,... [options]
  loadgen --target IP --probe-first-echo --since-realtime-ns T [options]

  --target IP            echo server's address (required): IPv4, or IPv6
                         (fe80::...%IFACE for a link-local one)
  --port N               its UDP/TCP echo port (default 1235; TCP echo is 1236)
  --transport T          udp (default), tcp (one connection, 1460-byte records)
                         or raw (Ethernet frames on --iface: for a layer-2
                         reflector, which swaps MACs and nothing else)
  --rates LIST           requested rates, bits/s of payload: 10M,100M,1G ...
  --size N               payload bytes (default 1472 udp/raw, 1460 tcp; >= 32)
  --samples N            recorded packets per rate (default 2000)
  --warmup N             packets sent first, not recorded (default 200)
  --cooldown N           packets sent after, not recorded (default 200)
  --max-seconds S        bound per rate (default 30): a rate too low to send
                         everything in S seconds is refused
  --drain-ms N           wait for replies after the last send (default 500);
                         replies in a second such wait count as late
  --util-port N          ipbench utilisation service (TCP, default 1237);
                         0 = none. Unreachable: empty Idle/Total columns
  --require-util         fail (exit 1) if the utilisation service is unreachable
  --stats                ask the guest for STARLING-STATS before and after each
                         rate; print instructions per echoed packet and the
                         high-water marks (stderr, or --stats-file)
  --closed-loop          send each packet only once the one before it came back
                         (or 100 ms passed), at the rate's times at the
                         earliest: one packet in flight, so the guest never
                         sees two at once however late the host runs
  --stats-file PATH      append those figures to PATH as key=value lines
  --stats-port N         UDP port of the stats query (default: --port for
                         udp, 1235 for tcp; raw uses a 0x88B5 frame)
  --iface NAME           raw: interface to send and receive frames on
  --dst-mac MAC          raw: the guest's MAC (aa:bb:cc:dd:ee:ff)
  --src-ip IP            raw: our IPv4 in the frames
  --probe-first-echo     send a probe every millisecond until the first echo;
                         print "first_echo_ms=N" (ms since --since-realtime-ns)
  --since-realtime-ns T  CLOCK_REALTIME ns when QEMU was started (date +%s%N)
  --probe-timeout S      give up probing after S seconds (default 30)
  --no-header            do not print the CSV header
  --help                 this text
Exit: 0 ok, 1 a run failed (no reply at all, service required but absent),
2 bad usage.
)";

namespace {

template <typename T>
std::optional<T> parse_number(std::string_view text) {
  T v{};
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

bool valid_ipv4(std::string_view text) {
  int parts = 0;
  while (true) {
    const auto dot = text.find('.');
    auto part = parse_number<unsigned>(text.substr(0, dot));
    if (!part || *part > 255 || text.substr(0, dot).size() > 3) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return parts == 4;
}

// An IPv6 address, with an interface after '%' for a link-local one
// (fe80::5054:ff:fe12:3456%tap0).
bool valid_ipv6(std::string_view text) {
  const auto percent = text.find('%');
  const std::string address(text.substr(0, percent));
  if (percent != std::string_view::npos && percent + 1 == text.size()) return false;
  in6_addr parsed{};
  return inet_pton(AF_INET6, address.c_str(), &parsed) == 1;
}

bool valid_mac(std::string_view text) {
  if (text.size() != 17) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i % 3 == 2) {
      if (c != ':') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

ParsedOptions fail(std::string message) {
  return {std::nullopt, std::move(message)};
}

}  // namespace

std::optional<double> parse_rate(std::string_view text) {
  double scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'G':
        scale = 1e9;
        break;
      default:
        break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  auto v = parse_number<double>(text);
  if (!v || !std::isfinite(*v) || *v <= 0) return std::nullopt;
  return *v * scale;
}

ParsedOptions parse_options(std::span<const std::string_view> args) {
  Options o;
  bool rates_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view flag = args[i];
    std::string_view value;
    bool has_value = false;
    if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string_view::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    // Flags without a value.
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      continue;
    }
    if (flag == "--require-util" || flag == "--stats" || flag == "--probe-first-echo" ||
        flag == "--no-header" || flag == "--closed-loop") {
      if (has_value) return fail(std::string(flag) + " takes no value");
      if (flag == "--require-util") o.require_util = true;
      if (flag == "--stats") o.stats = true;
      if (flag == "--probe-first-echo") o.probe = true;
      if (flag == "--no-header") o.header = false;
      if (flag == "--closed-loop") o.closed_loop = true;
      continue;
    }
    static constexpr std::string_view kValued[] = {"--target",
                                                   "--port",
                                                   "--transport",
                                                   "--rates",
                                                   "--size",
                                                   "--samples",
                                                   "--warmup",
                                                   "--cooldown",
                                                   "--max-seconds",
                                                   "--drain-ms",
                                                   "--util-port",
                                                   "--stats-port",
                                                   "--stats-file",
                                                   "--iface",
                                                   "--dst-mac",
                                                   "--src-ip",
                                                   "--since-realtime-ns",
                                                   "--probe-timeout"};
    if (std::find(std::begin(kValued), std::end(kValued), flag) == std::end(kValued)) {
      if (!flag.starts_with("-")) return fail("unexpected argument '" + std::string(flag) + "'");
      return fail("unknown flag '" + std::string(flag) + "' (see --help)");
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        if (!flag.starts_with("--")) return fail("unexpected argument '" + std::string(flag) + "'");
        return fail(std::string(flag) + " needs a value (or is not a flag: see --help)");
      }
      value = args[++i];
    }
    const std::string name(flag);
    auto bad = [&](const char* what) {
      return fail(name + ": " + what + ", got '" + std::string(value) + "'");
    };
    if (flag == "--target") {
      if (!valid_ipv4(value) && !valid_ipv6(value)) {
        return bad("expected an IPv4 or IPv6 address (fe80::1%tap0 for a link-local one)");
      }
      o.target = value;
    } else if (flag == "--port" || flag == "--util-port" || flag == "--stats-port") {
      auto v = parse_number<unsigned>(value);
      if (!v || *v > 65535 || (flag != "--util-port" && *v == 0)) {
        return bad("expected a port number");
      }
      const auto port = static_cast<std::uint16_t>(*v);
      if (flag == "--port") {
        o.port = port;
      } else if (flag == "--util-port") {
        o.util_port = port;
      } else {
        o.stats_port = port;
      }
    } else if (flag == "--transport") {
      if (value == "udp") {
        o.transport = Transport::kUdp;
      } else if (value == "tcp") {
        o.transport = Transport::kTcp;
      } else if (value == "raw") {
        o.transport = Transport::kRaw;
      } else {
        return bad("expected udp, tcp or raw");
      }
    } else if (flag == "--rates") {
      o.rates_bps.clear();
      std::string_view list = value;
      while (true) {
        const auto comma = list.find(',');
        auto rate = parse_rate(list.substr(0, comma));
        if (!rate) return bad("expected rates in bits/s such as 10M,100M,1G");
        o.rates_bps.push_back(*rate);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
      rates_given = true;
    } else if (flag == "--size") {
      auto v = parse_number<std::uint32_t>(value);
      if (!v || *v < 32 || *v > 9000) return bad("expected payload bytes in 32..9000");
      o.size = *v;
    } else if (flag == "--samples" || flag == "--warmup" || flag == "--cooldown" ||
               flag == "--drain-ms" || flag == "--since-realtime-ns") {
      auto v = parse_number<std::uint64_t>(value);
      if (!v) return bad("expected a whole number");
      if (flag == "--samples") {
        if (*v == 0 || *v > 10'000'000) return bad("expected 1..10000000 samples");
        o.samples = *v;
      } else if (flag == "--warmup") {
        o.warmup = *v;
      } else if (flag == "--cooldown") {
        o.cooldown = *v;
      } else if (flag == "--drain-ms") {
        if (*v > 60'000) return bad("expected at most 60000 ms");
        o.drain_ms = *v;
      } else {
        o.since_realtime_ns = *v;
      }
    } else if (flag == "--max-seconds" || flag == "--probe-timeout") {
      auto v = parse_number<double>(value);
      if (!v || !std::isfinite(*v) || *v <= 0 || *v > 3600)
        return bad("expected seconds in (0, 3600]");
      (flag == "--max-seconds" ? o.max_seconds : o.probe_timeout_s) = *v;
    } else if (flag == "--stats-file") {
      if (value.empty()) return bad("expected a file name");
      o.stats_file = value;
    } else if (flag == "--iface") {
      if (value.empty() || value.size() > 15) return bad("expected an interface name");
      o.iface = value;
    } else if (flag == "--dst-mac") {
      if (!valid_mac(value)) return bad("expected a MAC such as 52:54:00:12:34:56");
      o.dst_mac = value;
    } else if (flag == "--src-ip") {
      if (!valid_ipv4(value)) return bad("expected an IPv4 address");
      o.src_ip = value;
    } else {
      return fail("unknown flag '" + name + "' (see --help)");
    }
  }
  if (o.help) return {o, {}};
  if (o.target.empty()) return fail("--target is required (the echo server's IPv4 address)");
  if (o.probe && rates_given) return fail("--probe-first-echo: no --rates with a probe");
  if (o.probe && o.since_realtime_ns == 0) {
    return fail("--probe-first-echo needs --since-realtime-ns (date +%s%N at QEMU start)");
  }
  if (!o.probe && !rates_given) return fail("--rates is required (e.g. --rates 10M,100M)");
  if (o.transport == Transport::kRaw &&
      (o.iface.empty() || o.dst_mac.empty() || o.src_ip.empty())) {
    return fail("--transport raw needs --iface, --dst-mac and --src-ip");
  }
  if (o.transport == Transport::kRaw && !valid_ipv4(o.target)) {
    return fail("--transport raw builds IPv4 frames: --target must be an IPv4 address");
  }
  if (o.transport != Transport::kRaw &&
      (!o.iface.empty() || !o.dst_mac.empty() || !o.src_ip.empty())) {
    return fail("--iface/--dst-mac/--src-ip only go with --transport raw");
  }
  if (o.transport == Transport::kTcp && o.probe) {
    return fail("--probe-first-echo: probes are UDP (or raw), not --transport tcp");
  }
  if (o.stats_port == 0) o.stats_port = o.transport == Transport::kUdp ? o.port : 1235;
  if (o.size == 0) o.size = o.transport == Transport::kTcp ? 1460 : 1472;
  if (o.transport == Transport::kRaw && o.size > 1472) {
    return fail("--size: a raw frame holds at most 1472 payload bytes");
  }
  if (!o.stats_file.empty() && !o.stats) return fail("--stats-file needs --stats");
  return {o, {}};
}

}  // namespace starling::bench
