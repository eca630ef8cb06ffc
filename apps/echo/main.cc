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
// STARLING_ECHO_UDP_PORT etc. pick other host ports.

#include <cstdint>
#include <string_view>

#include "kernel/async/executor.h"
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
#include "net/netif/ip_config.h"
#include "net/ipbench/utilisation.h"
#include "net/netif/netif.h"
#include "net/tcp/tcp.h"
#include "net/udp/udp.h"
#include "platform/qemu_virt/nic.h"

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

async::Task<void> udp_echo(std::uint16_t port) {
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
    if (!datagram.ok()) co_return Unexpected(datagram.error());
    for (int attempt = 0; attempt < kSendRetries; ++attempt) {
      auto sent = socket.send_to(datagram->from, datagram->data);
      if (sent.ok() || sent.error() != Error::kBusy) break;
      co_await async::sleep_for(50 * async::kMicrosecond);  // the netif reclaims TX room
    }
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
// send-buffer space, so a client that does not read slows only itself).
async::Task<void> tcp_echo_connection(net::TcpStream stream) {
  std::byte buffer[2048];
  for (;;) {
    auto n = co_await async::with_timeout(stream.read(buffer), kTcpIdleTimeoutNs);
    if (!n.ok() || *n == 0) break;
    auto written = co_await stream.write(std::span<const std::byte>(buffer, *n));
    if (!written.ok()) break;
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
    if (!stream.ok()) co_return Unexpected(stream.error());
    // A connection that cannot get a frame is refused, not fatal.
    (void)connections.spawn(tcp_echo_connection(std::move(*stream)));
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

  (void)scope.spawn(udp_echo(kUdpEchoPort));
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
