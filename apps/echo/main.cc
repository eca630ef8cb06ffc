// echo: the benchmark's echo server (docs/benchmarks.md).
//   UDP 1235: every datagram goes back to its sender, byte for byte.
//   TCP 1236: every connection's bytes go back on it, many connections at once.
//   TCP 1237: the ipbench cpu_target_lukem utilisation service, one client at
//             a time, reporting the executor's idle and total cycles.
//
// The address is 10.0.2.15/24 via 10.0.2.2 (QEMU user networking), or what
// the kernel command line says: `ip=dhcp` or `ip=A.B.C.D/N[,gw=E.F.G.H]`
// (QEMU: -append "ip=dhcp"). `bazel run //apps/echo:qemu` forwards
// 127.0.0.1:15235/udp to guest 1235 (and 15236, 15237/tcp to 1236, 1237);
// STARLING_ECHO_UDP_PORT etc. pick other host ports; STARLING_ECHO_NETDEV
// replaces the whole -netdev (e.g. a socket netdev for test/robustness).
//
// Stats for tests: a UDP datagram to 1235 whose payload is "STARLING-STATS"
// followed by nothing but spaces is answered (not echoed) with one text
// line of space-separated key=value counters (the image's metrics registry,
// kernel/metrics, rendered as a line: every sample with a line key), so a
// test can compare pool counts against a baseline ("STARLING-STATS pbuf_pool_used=..
// rx_wrappers_used=.. tcp_pcbs_used=.. ..."). The line is one datagram and
// leaves off what does not fit (it has grown past that): key prefixes after
// the command word pick what a test wants ("STARLING-STATS nd6_ icmp6_",
// then the padding). From IPv6, only a link-local sender is answered unless
// starling.stats_from= is given. Hostile peers (issue 12):
//   - only a sender inside the stats network is answered: the kernel
//     command line's `starling.stats_from=A.B.C.D/N`, by default the local
//     subnet; anyone else gets nothing (counted in stats_refused);
//   - the reply is never more than kStatsAmplification times the query: a
//     query shorter than the line would need gets "STARLING-STATS
//     pad_to=N" instead, and clients pad their query with spaces to N
//     (kStatsQueryBytes, 1024);
// UDP echo itself never answers a datagram sent to a broadcast address,
// nor one from port 0, from its own port or from another reflector's (echo
// 7, chargen 19): each is a way to make it flood or loop (udp_refused).

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/async/deadline.h"
#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "kernel/lib/bootargs.h"
#include "kernel/metrics/registry.h"
#include "kernel/metrics/stats_line.h"
#include "net/ipbench/utilisation.h"
#include "net/netif/ip_config.h"
#include "net/netif/netif.h"
#include "net/port/random.h"
#include "net/tcp/handoff.h"
#include "net/tcp/idle_clock.h"
#include "net/tcp/tcp.h"
#include "net/udp/udp.h"
#include "platform/network.h"

namespace starling {
namespace {

using board::Netif;
using console::print;

constexpr std::uint16_t kUdpEchoPort = 1235;
constexpr std::uint16_t kTcpEchoPort = 1236;
constexpr std::uint16_t kUtilisationPort = 1237;
constexpr std::uint8_t kTcpBacklog = 16;
// A connection that says nothing for this long is closed: it holds a PCB.
// While more than three quarters of the TCP table is held (one or more
// peers parking idle connections), 10 s is enough (net/tcp/idle_clock.h).
constexpr net::IdlePolicy kTcpIdle{.idle_ns = 60 * async::kSecond,
                                   .pressed_idle_ns = 10 * async::kSecond};
// A connection whose echo cannot be written for this long (a peer that
// keeps its window shut, answering probes) is reset: it holds a slot.
constexpr std::uint64_t kTcpWriteTimeoutNs = 30 * async::kSecond;
// The utilisation service's client says nothing for this long: closed.
// (ipbench's client is quiet between START and STOP, for one sample run.)
constexpr std::uint64_t kUtilisationIdleNs = 120 * async::kSecond;
// A full TX ring: retry the reply a few times, then drop it (counted).
constexpr int kSendRetries = 16;

struct Settings {
  bool stats_from_given = false;  // else: the local subnet, once it is known
  net::Subnet stats_from;
};

// The stats network: bootargs' starling.stats_from= when valid, else the
// local subnet once it is known.
Settings settings(std::string_view bootargs) {
  Settings out;
  const auto stats_from = bootarg_value(bootargs, "starling.stats_from");
  if (stats_from.found) {
    auto subnet = net::parse_subnet(stats_from.value);
    if (subnet.ok()) {
      out.stats_from_given = true;
      out.stats_from = *subnet;
    } else {
      console::print_ignoring("echo", {"starling.stats_from= (want A.B.C.D/N)"},
                              "stats answer the local subnet");
    }
  }
  return out;
}

constexpr std::string_view kStatsQuery = "STARLING-STATS";
// The longest reply; a query padded to this many bytes is always answered.
constexpr std::size_t kStatsQueryBytes = 1024;
// A reply is never longer than this many times the query.
constexpr std::size_t kStatsAmplification = 2;
// The line's room: one datagram without IP fragments. A counter that does
// not fit is left off the line (the line has grown past 1,024 bytes).
constexpr std::size_t kStatsLineBytes = 1472;
static_assert(kStatsLineBytes <= kStatsAmplification * kStatsQueryBytes);
constexpr std::string_view kStatsPadReply = "STARLING-STATS pad_to=1024\n";
static_assert(kStatsPadReply.size() <= kStatsAmplification * kStatsQuery.size());

// UDP echo outcomes, for the benchmark's cost per echoed packet (bench/echo).
struct EchoCounters {
  std::uint64_t echoed = 0;
  std::uint64_t dropped = 0;  // the TX ring stayed full through every retry
  // No coroutine frame for a receive or an accept: the service waited 1 ms
  // and went on (a full frame arena is a moment, not the end of a service).
  std::uint64_t no_memory_waits = 0;
  std::uint64_t connections_reset = 0;    // no frame for the connection's task: RST
  std::uint64_t udp_refused = 0;          // broadcast, or from port 0 / 1235 / 7 / 19
  std::uint64_t stats_refused = 0;        // stats query from outside the stats network
  std::uint64_t stats_short = 0;          // stats query too short: told to pad
  std::uint64_t write_timeouts = 0;       // TCP echo could not write for kTcpWriteTimeoutNs
  std::uint64_t idle_closes = 0;          // TCP echo connections quiet past kTcpIdle's limit
  std::uint64_t pressed_idle_closes = 0;  // ... of them, past the shorter one under pressure
  std::uint64_t tcp_echoed_bytes = 0;     // written back on TCP echo connections
};
EchoCounters g_echo;

// echo's own counters in the image's metrics (kernel/metrics), beside what
// the network bring-up registered; the stats line is the registry's line
// rendering (the keys it always had).
void register_echo_metrics(Netif& netif) {
  metrics::Registry& registry = metrics::registry();
  const auto& util = net::ipbench::utilisation_stats();
  const struct {
    metrics::SampleSpec spec;
    const std::uint64_t* value;
  } entries[] = {
      {{.name = "starling_echo_udp_echoed_total",
        .help = "UDP datagrams echoed.",
        .line_key = "udp_echoed"},
       &g_echo.echoed},
      {{.name = "starling_echo_udp_drops_total",
        .help = "UDP echoes dropped: the TX ring stayed full through every retry.",
        .line_key = "udp_echo_drops"},
       &g_echo.dropped},
      {{.name = "starling_echo_tcp_echoed_bytes_total",
        .help = "Bytes written back on TCP echo connections.",
        .line_key = "tcp_echoed_bytes"},
       &g_echo.tcp_echoed_bytes},
      {{.name = "starling_echo_tcp_connections_reset_total",
        .help = "TCP echo connections reset: no coroutine frame for their task.",
        .line_key = "tcp_connections_reset"},
       &g_echo.connections_reset},
      {{.name = "starling_echo_tcp_write_timeouts_total",
        .help = "TCP echo connections reset: their echo could not be written for 30 s.",
        .line_key = "tcp_write_timeouts"},
       &g_echo.write_timeouts},
      {{.name = "starling_echo_tcp_idle_closes_total",
        .help = "TCP echo connections closed for saying nothing for 60 s, or 10 s while "
                "the TCP table is more than three quarters full.",
        .line_key = "tcp_idle_closes"},
       &g_echo.idle_closes},
      {{.name = "starling_echo_tcp_pressed_idle_closes_total",
        .help = "TCP echo connections closed for 10 s of quiet while the TCP table was "
                "more than three quarters full.",
        .line_key = "tcp_pressed_idle_closes"},
       &g_echo.pressed_idle_closes},
      {{.name = "starling_echo_udp_refused_total",
        .help = "UDP datagrams not echoed: broadcast, or from port 0, 7, 19 or 1235.",
        .line_key = "udp_refused"},
       &g_echo.udp_refused},
      {{.name = "starling_echo_stats_refused_total",
        .help = "Stats queries from outside the stats network (not answered).",
        .line_key = "stats_refused"},
       &g_echo.stats_refused},
      {{.name = "starling_echo_stats_short_total",
        .help = "Stats queries too short for the reply (told to pad).",
        .line_key = "stats_short"},
       &g_echo.stats_short},
      {{.name = "starling_utilisation_idle_timeouts_total",
        .help = "Utilisation service clients closed for saying nothing for 120 s "
                "during a measurement.",
        .line_key = "util_idle_timeouts"},
       &util.idle_timeouts},
      {{.name = "starling_utilisation_command_timeouts_total",
        .help = "Utilisation service clients closed for saying nothing for 10 s between "
                "commands: the next client takes the service.",
        .line_key = "util_command_timeouts"},
       &util.command_timeouts},
      {{.name = "starling_utilisation_accept_errors_total",
        .help = "Utilisation service accepts that failed.",
        .line_key = "util_accept_errors"},
       &util.accept_errors},
  };
  for (const auto& e : entries) (void)registry.add(e.spec, e.value);
  // The line's no_memory_waits has always been echo's and the netif's together.
  (void)registry.add(
      {.name = "starling_echo_no_memory_waits_total",
       .help = "Echo services' and the netif's waits without a coroutine frame.",
       .line_key = "no_memory_waits"},
      [](const void* c) -> std::uint64_t {
        return g_echo.no_memory_waits + static_cast<const Netif*>(c)->stats().wait_no_memory;
      },
      &netif);
}

// The keys a stats query asks for: none (the whole line), or up to
// kMaxStatsFilters key prefixes after the command word.
constexpr std::size_t kMaxStatsFilters = 8;
struct StatsQuery {
  std::array<std::string_view, kMaxStatsFilters> only{};
  std::size_t count = 0;
};

// kStatsQuery, then spaces (padding) and, between them, up to
// kMaxStatsFilters key prefixes of [a-z0-9_] (`STARLING-STATS nd6_ icmp6_`:
// only the keys starting so, for a client the whole line, full past one
// datagram, would leave without them). Anything else is not a query (it is
// echoed).
bool parse_stats_query(const net::Pbuf& data, StatsQuery* query) {
  const auto bytes = data.contiguous();
  if (bytes.size() < kStatsQuery.size()) return false;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.substr(0, kStatsQuery.size()) != kStatsQuery) return false;
  std::size_t i = kStatsQuery.size();
  if (i < text.size() && text[i] != ' ') return false;
  *query = StatsQuery{};
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ') {
      const char c = text[i];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
      ++i;
    }
    if (query->count == kMaxStatsFilters) return false;
    query->only[query->count++] = text.substr(start, i - start);
  }
  return true;
}

// Ports a reflector listens on: answering them makes two reflectors loop.
bool refused_source_port(std::uint16_t from, std::uint16_t own) {
  return from == 0 || from == own || from == 7 /* echo */ || from == 19 /* chargen */;
}

// A stats query answered (or refused, counted): true. Anything else is for
// the echo: false. The first look is the command word alone, as every
// echoed datagram passes here (parsing filters, or zeroing the query's
// 136 bytes, per datagram cost ~100 instructions).
bool answer_stats_query(net::UdpSocket& socket, const net::Datagram& datagram, Netif& netif,
                        const Settings& settings) {
  const auto bytes = datagram.data.contiguous();
  if (bytes.size() < kStatsQuery.size() ||
      std::string_view(reinterpret_cast<const char*>(bytes.data()), kStatsQuery.size()) !=
          kStatsQuery) {
    return false;
  }
  StatsQuery query;
  if (!parse_stats_query(datagram.data, &query)) return false;
  const net::Subnet allowed = settings.stats_from_given ? settings.stats_from
                                                        : net::Subnet{.address = netif.address(),
                                                                      .netmask = netif.netmask()};
  // IPv4: the configured subnet, or our own. IPv6: a link-local source (a
  // host on our link) unless a subnet was configured.
  const net::IpAddress& from = datagram.from.address;
  const bool admitted = from.is_v4() ? allowed.contains(from.v4_host_order())
                                     : !settings.stats_from_given && from.is_link_local_v6();
  if (!admitted) {
    ++g_echo.stats_refused;
    return true;
  }
  char line[kStatsLineBytes];
  std::size_t n =
      metrics::render_stats_line(metrics::registry(), kStatsQuery, line,
                                 std::span<const std::string_view>(query.only.data(), query.count));
  if (n > kStatsAmplification * datagram.data.size()) {
    ++g_echo.stats_short;
    n = kStatsPadReply.copy(line, kStatsPadReply.size());
  }
  (void)socket.send_to(datagram.from, std::as_bytes(std::span<const char>(line, n)));
  return true;
}

async::Task<void> udp_echo(std::uint16_t port, Netif& netif, const Settings& settings) {
  net::UdpSocket socket;
  if (auto ok = socket.bind(port); !ok.ok()) {
    print("echo: FAIL udp bind: ");
    print(error_name(ok.error()));
    print("\n");
    co_return ok;
  }
  print("echo: udp echo on port ");
  console::print_dec(port);
  print("\n");
  for (;;) {
    auto datagram = co_await socket.receive_from();
    if (!datagram.ok() && datagram.error() == Error::kNoMemory) {
      ++g_echo.no_memory_waits;
      co_await async::sleep_for(async::kMillisecond);
      continue;
    }
    if (!datagram.ok()) co_return Unexpected(datagram.error());
    if (!datagram->unicast || refused_source_port(datagram->from.port, port)) {
      ++g_echo.udp_refused;
      continue;
    }
    if (answer_stats_query(socket, *datagram, netif, settings)) continue;
    bool echoed = false;
    for (int attempt = 0; attempt < kSendRetries; ++attempt) {
      auto sent = socket.send_to(datagram->from, datagram->data);
      echoed = sent.ok();
      // kBusy: the TX ring is full; kNoMemory: lwIP's pbufs are (both pass).
      if (sent.ok() || (sent.error() != Error::kBusy && sent.error() != Error::kNoMemory)) break;
      co_await async::sleep_for(50 * async::kMicrosecond);  // the netif reclaims TX room
    }
    ++(echoed ? g_echo.echoed : g_echo.dropped);
  }
}

void print_failure(const char* what, Error error) {
  print("echo: FAIL ");
  print(what);
  print(": ");
  print(error_name(error));
  print("\n");
}

// One TCP echo connection: read what arrived, write it back (write waits for
// send-buffer space, so a client that does not read slows only itself). The
// peer closing, or saying nothing past kTcpIdle's limit (the shorter one
// while the TCP table is under pressure), ends it with a FIN; a failed read
// or write (no memory, a reset) ends it with an RST, because the echo is
// then incomplete and a FIN would pass it off as whole.
async::Task<void> tcp_echo_connection(net::StreamHandoff connection) {
  net::TcpStream stream = connection.take();
  // Each piece is written back from where it was received (peek), then
  // consumed: no buffer of the echo's own and one copy fewer per segment
  // (net/tcp/tcp.h says what it saves).
  net::IdleClock idle(kTcpIdle);
  // One deadline for every wait: pushed back by each piece, it keeps its
  // timer in the queue (async::Deadline) where with_timeout inserted and
  // removed one per read.
  async::Deadline quiet;
  for (;;) {
    const std::uint64_t wait = idle.next_wait_ns(net::tcp_table_pressed());
    if (wait == 0) {
      ++g_echo.idle_closes;
      if (idle.closed_under_pressure()) ++g_echo.pressed_idle_closes;
      break;
    }
    quiet.set(async::deadline_after(wait));
    auto piece = co_await quiet.bound(stream.peek());
    if (!piece.ok() && piece.error() == Error::kTimedOut) continue;  // look at the limit again
    if (piece.ok() && piece->empty()) break;
    if (!piece.ok()) {
      stream.abort();
      co_return {};
    }
    idle.heard();
    auto written = co_await async::with_timeout(stream.write(*piece), kTcpWriteTimeoutNs);
    if (!written.ok()) {
      if (written.error() == Error::kTimedOut) ++g_echo.write_timeouts;
      stream.abort();
      co_return {};
    }
    (void)stream.consume(piece->size());  // what peek() showed: always taken
    g_echo.tcp_echoed_bytes += piece->size();
  }
  co_return stream.close();
}

async::Task<void> tcp_echo(std::uint16_t port) {
  auto listener = net::TcpListener::listen(port, kTcpBacklog);
  if (!listener.ok()) {
    print_failure("tcp echo listen", listener.error());
    co_return Unexpected(listener.error());
  }
  print("echo: tcp echo on port ");
  console::print_dec(port);
  print("\n");
  async::Scope connections;
  for (;;) {
    auto stream = co_await listener->accept();
    if (!stream.ok() && stream.error() == Error::kNoMemory) {
      ++g_echo.no_memory_waits;
      co_await async::sleep_for(async::kMillisecond);
      continue;
    }
    if (!stream.ok()) co_return Unexpected(stream.error());
    // A connection that cannot get a frame is reset (StreamHandoff), not fatal.
    (void)connections.spawn(
        tcp_echo_connection(net::StreamHandoff(std::move(*stream), &g_echo.connections_reset)));
  }
}

async::Task<void> utilisation(std::uint16_t port) {
  auto listener = net::TcpListener::listen(port, 1);
  if (!listener.ok()) {
    print_failure("utilisation listen", listener.error());
    co_return Unexpected(listener.error());
  }
  print("echo: utilisation service on port ");
  console::print_dec(port);
  print("\n");
  co_return co_await net::ipbench::serve_utilisation(*listener, net::ipbench::executor_sampler,
                                                     nullptr, kUtilisationIdleNs);
}

async::Task<int> serve(const BootInfo& boot) {
  async::Scope scope;
  auto network = co_await board::bring_up_network("echo", boot, scope);
  if (!network.ok()) co_return board::kNetworkFailed;
  static Settings chosen;  // the services keep a reference
  chosen = settings(network->bootargs);
  Netif& netif = *network->netif;
  register_echo_metrics(netif);
  (void)scope.spawn(udp_echo(kUdpEchoPort, netif, chosen));
  (void)scope.spawn(tcp_echo(kTcpEchoPort));
  (void)scope.spawn(utilisation(kUtilisationPort));
  co_return co_await board::serve_until_stopped("echo", scope);
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::serve(boot));
  return code.ok() ? *code : 1;
}
