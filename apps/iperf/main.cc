// iperf: lwIP's iperf2 server (lwiperf, raw API) on TCP port 5001.
//
// Each finished or aborted session prints one console line:
//   iperf: session done-server from 10.0.2.2:40522 bytes 1234567 ms 3001 kbit/s 3291
//     instret 123 idle_cycles 45 rx_frames 67   (one line; counters since boot)
// The counters make the cost of a stream: between two sessions' lines,
// (Δinstret - Δidle_cycles) / Δrx_frames is busy instructions per received
// segment when the image runs under -icount (bench/echo's stream leg).
// The address is 10.0.2.15/24 via 10.0.2.2 (QEMU user networking), or what
// the kernel command line's ip= says (platform/network.h).
// `bazel run //apps/iperf:qemu` forwards 127.0.0.1:15001/tcp to guest 5001
// (STARLING_IPERF_TCP_PORT picks another host port); measure with
//   iperf -c 127.0.0.1 -p 15001 -t 5

#include <cstdint>
#include <string_view>

#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "lwip/apps/lwiperf.h"
#include "lwip/ip_addr.h"
#include "platform/network.h"

namespace starling {
namespace {

using console::print;
void print_ip(std::uint32_t address) {
  char text[16];
  print(std::string_view(text, net::format_ipv4(address, text)));
}

const char* report_name(lwiperf_report_type type) {
  switch (type) {
    case LWIPERF_TCP_DONE_SERVER:
      return "done-server";
    case LWIPERF_TCP_DONE_CLIENT:
      return "done-client";
    case LWIPERF_TCP_ABORTED_LOCAL:
      return "aborted-local";
    case LWIPERF_TCP_ABORTED_LOCAL_DATAERROR:
      return "aborted-local-data-error";
    case LWIPERF_TCP_ABORTED_LOCAL_TXERROR:
      return "aborted-local-tx-error";
    case LWIPERF_TCP_ABORTED_REMOTE:
      return "aborted-remote";
  }
  return "unknown";
}

std::uint64_t sessions = 0;
const board::Netif* g_netif = nullptr;

// lwiperf's report callback (from lwIP's TCP callbacks, in the netif's task).
void report(void* /*arg*/, lwiperf_report_type type, const ip_addr_t* /*local_addr*/,
            u16_t /*local_port*/, const ip_addr_t* remote_addr, u16_t remote_port,
            u32_t bytes_transferred, u32_t ms_duration, u32_t bandwidth_kbitpsec) {
  ++sessions;
  print("iperf: session ");
  print(report_name(type));
  print(" from ");
  if (remote_addr != nullptr) {
    print_ip(lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(remote_addr))));
  } else {
    print("?");
  }
  print(":");
  console::print_dec(remote_port);
  print(" bytes ");
  console::print_dec(bytes_transferred);
  print(" ms ");
  console::print_dec(ms_duration);
  print(" kbit/s ");
  console::print_dec(bandwidth_kbitpsec);
  print(" instret ");
  console::print_dec(hal::instructions());
  print(" idle_cycles ");
  console::print_dec(async::Executor::current().idle_cycles());
  print(" rx_frames ");
  console::print_dec(g_netif == nullptr ? 0 : g_netif->stats().rx_frames);
  print("\n");
}

async::Task<int> serve(const BootInfo& boot) {
  async::Scope scope;
  auto network = co_await board::bring_up_network("iperf", boot, scope);
  if (!network.ok()) co_return board::kNetworkFailed;
  g_netif = network->netif;

  if (lwiperf_start_tcp_server_default(&report, nullptr) == nullptr) {
    print("iperf: FAIL lwiperf_start_tcp_server_default\n");
    co_return 6;  // not kServiceStopped: it never started
  }
  print("iperf: lwiperf tcp server on port ");
  console::print_dec(LWIPERF_TCP_PORT_DEFAULT);
  print("\n");
  // lwiperf runs from lwIP's callbacks inside the netif's task: this returns
  // only if the netif fails.
  co_return co_await board::serve_until_stopped("iperf", scope);
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::serve(boot));
  return code.ok() ? *code : 1;
}
