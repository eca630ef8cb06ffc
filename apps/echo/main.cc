// echo: the benchmark's echo server (../shared/docs/BENCHMARK.md).
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
// line of space-separated key=value counters, so a test can compare pool
// counts against a baseline ("STARLING-STATS pbuf_pool_used=..
// rx_wrappers_used=.. tcp_pcbs_used=.. ..."). Hostile peers (issue 12):
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

#include <cstdint>
#include <string_view>

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "net/ipbench/utilisation.h"
#include "net/netif/ip_config.h"
#include "net/netif/netif.h"
#include "net/port/random.h"
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
constexpr std::uint64_t kTcpIdleTimeoutNs = 60 * async::kSecond;
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
  const auto stats_from = net::bootarg_value(bootargs, "starling.stats_from");
  if (stats_from.found) {
    auto subnet = net::parse_subnet(stats_from.value);
    if (subnet.ok()) {
      out.stats_from_given = true;
      out.stats_from = *subnet;
    } else {
      print(
          "echo: ignoring starling.stats_from= (want A.B.C.D/N); stats answer the local subnet\n");
    }
  }
  return out;
}

// Elements of an lwIP memp pool in use: its size minus its free list.
std::size_t memp_in_use(memp_t type) {
  const memp_desc* desc = memp_pools[type];
  std::size_t free = 0;
  for (const memp* m = *desc->tab; m != nullptr && free <= desc->num; m = m->next) ++free;
  return free > desc->num ? 0 : desc->num - free;
}

std::size_t pcb_count(const tcp_pcb* pcb) {
  std::size_t n = 0;
  for (; pcb != nullptr; pcb = pcb->next) ++n;
  return n;
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
  std::uint64_t connections_reset = 0;  // no frame for the connection's task: RST
  std::uint64_t udp_refused = 0;        // broadcast, or from port 0 / 1235 / 7 / 19
  std::uint64_t stats_refused = 0;      // stats query from outside the stats network
  std::uint64_t stats_short = 0;        // stats query too short: told to pad
  std::uint64_t write_timeouts = 0;     // TCP echo could not write for kTcpWriteTimeoutNs
  std::uint64_t tcp_echoed_bytes = 0;   // written back on TCP echo connections
};
EchoCounters g_echo;

// Appends " key=value" to line at used; returns the new length.
std::size_t append_stat(char* line, std::size_t used, std::size_t cap, std::string_view key,
                        std::uint64_t value) {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  if (used + 2 + key.size() + n >= cap) return used;
  line[used++] = ' ';
  for (char c : key) line[used++] = c;
  line[used++] = '=';
  while (n != 0) line[used++] = digits[--n];
  return used;
}

// The stats line answered to kStatsQuery (see the header comment).
std::size_t stats_line(Netif& netif, char* line, std::size_t cap) {
  std::size_t used = 0;
  for (char c : kStatsQuery) line[used++] = c;
  const auto& nic = netif.nic().stats();
  const auto& pool = netif.rx_pool().stats();
  const auto& ns = netif.stats();
  const auto& tcp = net::tcp_stats();
  used = append_stat(line, used, cap, "pbuf_pool_used", memp_in_use(MEMP_PBUF_POOL));
  used = append_stat(line, used, cap, "pbuf_ref_used", memp_in_use(MEMP_PBUF));
  used = append_stat(line, used, cap, "rx_wrappers_used", netif.rx_pool().in_use());
  used = append_stat(line, used, cap, "tcp_pcbs_used", memp_in_use(MEMP_TCP_PCB));
  used = append_stat(line, used, cap, "tcp_segs_used", memp_in_use(MEMP_TCP_SEG));
  used = append_stat(line, used, cap, "tcp_active", pcb_count(tcp_active_pcbs));
  used = append_stat(line, used, cap, "tcp_time_wait", pcb_count(tcp_tw_pcbs));
  used = append_stat(line, used, cap, "tcp_conns", tcp.connections_in_use);
  used = append_stat(line, used, cap, "tcp_accepted", tcp.accepted);
  used = append_stat(line, used, cap, "tcp_refused_backlog", tcp.refused_backlog);
  used = append_stat(line, used, cap, "tcp_refused_pool", tcp.refused_pool);
  used = append_stat(line, used, cap, "tcp_resets", tcp.resets);
  // High-water marks since boot (lwipopts.h: MEMP_STATS, MEM_STATS).
  used = append_stat(line, used, cap, "pbuf_pool_max", lwip_stats.memp[MEMP_PBUF_POOL]->max);
  used = append_stat(line, used, cap, "pbuf_ref_max", lwip_stats.memp[MEMP_PBUF]->max);
  used = append_stat(line, used, cap, "tcp_pcbs_max", lwip_stats.memp[MEMP_TCP_PCB]->max);
  used = append_stat(line, used, cap, "tcp_segs_max", lwip_stats.memp[MEMP_TCP_SEG]->max);
  used = append_stat(line, used, cap, "lwip_heap_max_bytes", lwip_stats.mem.max);
  // RAM high-water marks: pages (DMA rings and buffers, heap, frame arena
  // all come from the page allocator) and coroutine frames.
  used = append_stat(line, used, cap, "pages_max", boot::page_allocator().stats().high_water_pages);
  if (const async::FrameAllocator* frames = boot::frame_allocator()) {
    used = append_stat(line, used, cap, "coroutine_frames_max_bytes", frames->peak_bytes_in_use());
    used = append_stat(line, used, cap, "coroutine_frames_used", frames->frames_in_use());
    used = append_stat(line, used, cap, "coroutine_frame_failures", frames->failed_allocations());
  }
  used = append_stat(line, used, cap, "rx_wrappers_max", pool.max_in_use);
  used = append_stat(line, used, cap, "rx_pool_exhausted", pool.exhausted);
  used = append_stat(line, used, cap, "rx_too_long", pool.too_long);
  used = append_stat(line, used, cap, "rx_copied_small", pool.copied_small);
  used = append_stat(line, used, cap, "rx_copied_pressure", pool.copied_pressure);
  used = append_stat(line, used, cap, "rx_copy_failed", pool.copy_failed);
  used = append_stat(line, used, cap, "netif_rx_runts", ns.rx_runts);
  used = append_stat(line, used, cap, "netif_rx_bad_header", ns.rx_bad_header);
  used = append_stat(line, used, cap, "netif_rx_multicast", ns.rx_multicast);
  used = append_stat(line, used, cap, "netif_rx_frames", ns.rx_frames);
  used = append_stat(line, used, cap, "netif_rx_batches", ns.rx_batches);
  used = append_stat(line, used, cap, "netif_wakeups", ns.wakeups);
  used = append_stat(line, used, cap, "netif_tx_in_place", ns.tx_in_place);
  used = append_stat(line, used, cap, "netif_tx_busy_drops", ns.tx_busy_drops);
  used = append_stat(line, used, cap, "netif_tx_errors", ns.tx_errors);
  // Checksum offload in use: lwIP leaves UDP/TCP checksums to the NIC on
  // transmit; frames whose checksum the NIC vouched for on receive.
  used = append_stat(line, used, cap, "netif_tx_checksum_offload",
                     (netif.lwip_netif()->chksum_flags & NETIF_CHECKSUM_GEN_UDP) == 0 ? 1 : 0);
  used = append_stat(line, used, cap, "netif_rx_checksum_trusted", ns.rx_checksum_trusted);
  used = append_stat(line, used, cap, "nic_rx_frames", nic.rx_frames);
  used = append_stat(line, used, cap, "nic_rx_drops", nic.rx_drops);
  used = append_stat(line, used, cap, "nic_rx_errors", nic.rx_errors);
  used = append_stat(line, used, cap, "nic_resets", nic.resets);
  used = append_stat(line, used, cap, "nic_tx_frames", nic.tx_frames);
  used = append_stat(line, used, cap, "nic_tx_busy", nic.tx_busy);
  used = append_stat(line, used, cap, "nic_interrupts", nic.interrupts);
  used = append_stat(line, used, cap, "nic_tx_in_place_copied", nic.tx_in_place_copied);
  used = append_stat(line, used, cap, "udp_echoed", g_echo.echoed);
  used = append_stat(line, used, cap, "udp_echo_drops", g_echo.dropped);
  used = append_stat(line, used, cap, "tcp_echoed_bytes", g_echo.tcp_echoed_bytes);
  used =
      append_stat(line, used, cap, "no_memory_waits", g_echo.no_memory_waits + ns.wait_no_memory);
  used = append_stat(line, used, cap, "tcp_connections_reset", g_echo.connections_reset);
  used = append_stat(line, used, cap, "tcp_write_timeouts", g_echo.write_timeouts);
  used = append_stat(line, used, cap, "tcp_rx_refused_unread", tcp.refused_unread);
  used = append_stat(line, used, cap, "udp_refused", g_echo.udp_refused);
  used = append_stat(line, used, cap, "stats_refused", g_echo.stats_refused);
  used = append_stat(line, used, cap, "stats_short", g_echo.stats_short);
  used = append_stat(line, used, cap, "entropy_ok", net::entropy_status().ok ? 1 : 0);
  const auto& util = net::ipbench::utilisation_stats();
  used = append_stat(line, used, cap, "util_idle_timeouts", util.idle_timeouts);
  used = append_stat(line, used, cap, "util_accept_errors", util.accept_errors);
  // For bench/echo: deltas between two queries give instructions and cycles
  // per echoed packet over the measured interval.
  used = append_stat(line, used, cap, "uptime_ns", hal::now_ns());
  used = append_stat(line, used, cap, "cycles", hal::cycles());
  used = append_stat(line, used, cap, "instret", hal::instructions());
  // Cycles spent in hal::idle(): instret minus these, under QEMU -icount,
  // is the instructions the guest retired while busy.
  used = append_stat(line, used, cap, "idle_cycles", async::Executor::current().idle_cycles());
  if (used < cap) line[used++] = '\n';
  return used;
}

// kStatsQuery, then only spaces (padding).
bool is_stats_query(const net::Pbuf& data) {
  const auto bytes = data.contiguous();
  if (bytes.size() < kStatsQuery.size()) return false;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = static_cast<char>(bytes[i]);
    if (i < kStatsQuery.size() ? c != kStatsQuery[i] : c != ' ') return false;
  }
  return true;
}

// Ports a reflector listens on: answering them makes two reflectors loop.
bool refused_source_port(std::uint16_t from, std::uint16_t own) {
  return from == 0 || from == own || from == 7 /* echo */ || from == 19 /* chargen */;
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
    if (is_stats_query(datagram->data)) {
      const net::Subnet allowed =
          settings.stats_from_given
              ? settings.stats_from
              : net::Subnet{.address = netif.address(), .netmask = netif.netmask()};
      if (!allowed.contains(datagram->from.address)) {
        ++g_echo.stats_refused;
        continue;
      }
      char line[kStatsLineBytes];
      std::size_t n = stats_line(netif, line, sizeof line);
      if (n > kStatsAmplification * datagram->data.size()) {
        ++g_echo.stats_short;
        n = kStatsPadReply.copy(line, kStatsPadReply.size());
      }
      (void)socket.send_to(datagram->from, std::as_bytes(std::span<const char>(line, n)));
      continue;
    }
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

// A connection on its way into its task. If the task's frame cannot be
// allocated, the coroutine never takes it, and this (the caller's argument)
// resets the connection: the client sees an error, not a clean end of an
// echo that never happened.
class NewConnection {
 public:
  explicit NewConnection(net::TcpStream stream) : stream_(std::move(stream)) {}
  NewConnection(NewConnection&& other) noexcept
      : stream_(std::move(other.stream_)), taken_(other.taken_) {
    other.taken_ = true;
  }
  NewConnection(const NewConnection&) = delete;
  NewConnection& operator=(const NewConnection&) = delete;
  NewConnection& operator=(NewConnection&&) = delete;
  ~NewConnection() {
    if (!taken_) {
      ++g_echo.connections_reset;
      stream_.abort();
    }
  }
  net::TcpStream take() {
    taken_ = true;
    return std::move(stream_);
  }

 private:
  net::TcpStream stream_;
  bool taken_ = false;
};

// One TCP echo connection: read what arrived, write it back (write waits for
// send-buffer space, so a client that does not read slows only itself). The
// peer closing, or saying nothing for kTcpIdleTimeoutNs, ends it with a FIN;
// a failed read or write (no memory, a reset) ends it with an RST, because
// the echo is then incomplete and a FIN would pass it off as whole.
async::Task<void> tcp_echo_connection(NewConnection connection) {
  net::TcpStream stream = connection.take();
  std::byte buffer[2048];
  for (;;) {
    auto n = co_await async::with_timeout(stream.read(buffer), kTcpIdleTimeoutNs);
    if (n.ok() && *n == 0) break;
    if (!n.ok()) {
      if (n.error() == Error::kTimedOut) break;
      stream.abort();
      co_return {};
    }
    auto written = co_await async::with_timeout(
        stream.write(std::span<const std::byte>(buffer, *n)), kTcpWriteTimeoutNs);
    if (!written.ok()) {
      if (written.error() == Error::kTimedOut) ++g_echo.write_timeouts;
      stream.abort();
      co_return {};
    }
    g_echo.tcp_echoed_bytes += *n;
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
    // A connection that cannot get a frame is reset (NewConnection), not fatal.
    (void)connections.spawn(tcp_echo_connection(NewConnection(std::move(*stream))));
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
  (void)scope.spawn(udp_echo(kUdpEchoPort, netif, chosen));
  (void)scope.spawn(tcp_echo(kTcpEchoPort));
  (void)scope.spawn(utilisation(kUtilisationPort));
  print("echo: ready\n");
  auto joined = co_await scope.join();
  print("echo: FAIL a service stopped: ");
  print(joined.ok() ? "ok" : error_name(joined.error()));
  print("\n");
  co_return 5;
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::serve(boot));
  return code.ok() ? *code : 1;
}
