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
// Stats for tests: a UDP datagram to 1235 whose payload is exactly
// "STARLING-STATS" is answered (not echoed) with one text line of
// space-separated key=value counters, so a test can compare pool counts
// against a baseline ("STARLING-STATS pbuf_pool_used=.. rx_wrappers_used=..
// tcp_pcbs_used=.. tcp_active=.. tcp_time_wait=.. ..."). The query's own
// datagram holds one RX wrapper and one pbuf while the line is made.

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
#include "kernel/fdt/chosen.h"
#include "kernel/fdt/device_tree.h"
#include "kernel/mem/address.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "net/ipbench/utilisation.h"
#include "net/netif/ip_config.h"
#include "net/netif/netif.h"
#include "net/tcp/tcp.h"
#include "net/udp/udp.h"
#include "platform/hal/clock.h"
#include "platform/nic.h"

namespace starling {
namespace {

using console::print;
using Netif = net::Netif<board::Nic>;

constexpr std::uint16_t kUdpEchoPort = 1235;
constexpr std::uint16_t kTcpEchoPort = 1236;
constexpr std::uint16_t kUtilisationPort = 1237;
constexpr std::uint8_t kTcpBacklog = 16;
// A connection that says nothing for this long is closed: it holds a PCB.
constexpr std::uint64_t kTcpIdleTimeoutNs = 60 * async::kSecond;
constexpr std::uint64_t kAddressTimeoutNs = 15 * async::kSecond;
constexpr std::size_t kMaxDeviceTreeBytes = 2u << 20;
// A full TX ring: retry the reply a few times, then drop it (counted).
constexpr int kSendRetries = 16;

void print_ip(std::uint32_t address) {
  char text[16];
  print(std::string_view(text, net::format_ipv4(address, text)));
}

int prefix_length(std::uint32_t mask) {
  int n = 0;
  while (mask & 0x8000'0000u) {
    ++n;
    mask <<= 1;
  }
  return n;
}

// The IPv4 configuration: the default, or bootargs' ip= when valid.
net::IpConfig ip_config(const BootInfo& boot) {
  auto tree = fdt::DeviceTree::open(mem::to_pointer(boot.dtb), kMaxDeviceTreeBytes);
  if (!tree.ok()) return net::kQemuUserDefault;
  auto chosen = fdt::read_chosen(*tree);
  if (!chosen.ok() || !chosen->bootargs) return net::kQemuUserDefault;
  const auto parsed = net::parse_bootargs(*chosen->bootargs);
  if (parsed.error != net::IpConfigError::kNone) {
    print("echo: ignoring bootargs ip=: ");
    print(net::ip_config_error_text(parsed.error));
    print("; using the default\n");
    return net::kQemuUserDefault;
  }
  return parsed.config;
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

// UDP echo outcomes, for the benchmark's cost per echoed packet (bench/echo).
struct EchoCounters {
  std::uint64_t echoed = 0;
  std::uint64_t dropped = 0;  // the TX ring stayed full through every retry
  // No coroutine frame for a receive or an accept: the service waited 1 ms
  // and went on (a full frame arena is a moment, not the end of a service).
  std::uint64_t no_memory_waits = 0;
  std::uint64_t connections_reset = 0;  // no frame for the connection's task: RST
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
  used = append_stat(line, used, cap, "netif_rx_frames", ns.rx_frames);
  used = append_stat(line, used, cap, "netif_tx_busy_drops", ns.tx_busy_drops);
  used = append_stat(line, used, cap, "netif_tx_errors", ns.tx_errors);
  used = append_stat(line, used, cap, "nic_rx_frames", nic.rx_frames);
  used = append_stat(line, used, cap, "nic_rx_drops", nic.rx_drops);
  used = append_stat(line, used, cap, "nic_rx_errors", nic.rx_errors);
  used = append_stat(line, used, cap, "nic_resets", nic.resets);
  used = append_stat(line, used, cap, "nic_tx_frames", nic.tx_frames);
  used = append_stat(line, used, cap, "nic_tx_busy", nic.tx_busy);
  used = append_stat(line, used, cap, "udp_echoed", g_echo.echoed);
  used = append_stat(line, used, cap, "udp_echo_drops", g_echo.dropped);
  used =
      append_stat(line, used, cap, "no_memory_waits", g_echo.no_memory_waits + ns.wait_no_memory);
  used = append_stat(line, used, cap, "tcp_connections_reset", g_echo.connections_reset);
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

bool is_stats_query(const net::Pbuf& data) {
  const auto bytes = data.contiguous();
  if (bytes.size() != kStatsQuery.size()) return false;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (static_cast<char>(bytes[i]) != kStatsQuery[i]) return false;
  }
  return true;
}

async::Task<void> udp_echo(std::uint16_t port, Netif& netif) {
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
    if (is_stats_query(datagram->data)) {
      char line[1024];
      const std::size_t n = stats_line(netif, line, sizeof line);
      (void)socket.send_to(datagram->from, std::as_bytes(std::span<const char>(line, n)));
      continue;
    }
    bool echoed = false;
    for (int attempt = 0; attempt < kSendRetries; ++attempt) {
      auto sent = socket.send_to(datagram->from, datagram->data);
      echoed = sent.ok();
      if (sent.ok() || sent.error() != Error::kBusy) break;
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
    auto written = co_await stream.write(std::span<const std::byte>(buffer, *n));
    if (!written.ok()) {
      stream.abort();
      co_return {};
    }
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
  co_return co_await net::ipbench::serve_utilisation(*listener);
}

async::Task<int> serve(const BootInfo& boot) {
  auto nic = board::nic(boot::page_allocator());
  if (!nic.ok()) {
    print("echo: FAIL no NIC: ");
    print(error_name(nic.error()));
    print("\n");
    co_return 2;
  }
  const net::IpConfig config = ip_config(boot);
  Netif netif(**nic);
  if (auto ok = netif.start(config); !ok.ok()) {
    print("echo: FAIL netif start: ");
    print(error_name(ok.error()));
    print("\n");
    co_return 3;
  }
  async::Scope scope;
  (void)scope.spawn(netif.run());
  if (config.dhcp) print("echo: DHCP...\n");
  auto address = co_await async::with_timeout(netif.wait_for_address(), kAddressTimeoutNs);
  if (!address.ok()) {
    print("echo: FAIL no address: ");
    print(error_name(address.error()));
    print("\n");
    co_return 4;
  }
  print("echo: address ");
  print_ip(netif.address());
  print("/");
  console::print_dec(prefix_length(netif.netmask()));
  print(" gw ");
  print_ip(netif.gateway());
  print(config.dhcp ? " (dhcp)\n" : " (static)\n");

  (void)scope.spawn(udp_echo(kUdpEchoPort, netif));
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
