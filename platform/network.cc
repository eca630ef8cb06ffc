#include "platform/network.h"

#include <bit>
#include <optional>

#include "kernel/async/runtime_metrics.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/fdt/chosen.h"
#include "kernel/mem/address.h"
#include "kernel/mem/page_metrics.h"
#include "kernel/metrics/page.h"
#include "kernel/metrics/registry.h"
#include "kernel/text/writer.h"
#include "net/fairness/peer_shares.h"
#include "net/lwip/lwip_metrics.h"
#include "net/netif/ip_metrics.h"
#include "net/netif/netif_metrics.h"
#include "net/port/random.h"
#include "net/sntp/sntp.h"
#include "net/tcp/tcp_metrics.h"

namespace starling::board {
namespace {

using console::print;

void print_ip(std::uint32_t address) {
  char text[16];
  print(std::string_view(text, net::format_ipv4(address, text)));
}

// The leading one bits of a netmask (a contiguous mask, as the netif keeps).
int prefix_length(std::uint32_t mask) {
  return std::countl_one(mask);
}

void print_failure(std::string_view app, std::string_view what, Error error) {
  print(app);
  print(": FAIL ");
  print(what);
  print(": ");
  print(error_name(error));
  print("\n");
}

// The image's metrics (kernel/metrics): the runtime, the pages, the NIC and
// netif, lwIP's pools and heap, TCP, IP (entropy, addresses, IPv6, DNS,
// reassembly), and what the metrics page itself costs to render
// (metrics::render_page). Applications add their own.
// A refusal (the registry full) costs the metric, not the network.
void register_metrics(std::string_view app, Netif& netif) {
  metrics::Registry& registry = metrics::registry();
  Result<void> results[] = {
      async::register_runtime_metrics(registry, async::Executor::current(),
                                      boot::frame_allocator()),
      mem::register_page_metrics(registry, boot::page_allocator()),
      net::register_netif_metrics(registry, netif, kNicName),
      net::register_lwip_metrics(registry),
      net::register_tcp_metrics(registry),
      metrics::register_render_metrics(registry),
      net::register_ip_metrics(registry),
      net::register_clock_metrics(registry),
  };
  for (const Result<void>& result : results) {
    if (!result.ok()) {
      print_failure(app, "metrics registration (some metrics missing)", result.error());
      return;
    }
  }
}

// Where the wall clock will come from, once: "clock: unset; sntp from
// 10.0.2.2" (or "from DHCP's servers", or "sntp=off").
void print_clock_source(std::string_view app, const net::SntpConfig& sntp, bool dhcp) {
  print(app);
  print(": clock unset; ");
  switch (sntp.mode) {
    case net::SntpConfig::Mode::kOff:
      print("sntp=off: no Date header, certificate dates not checked\n");
      return;
    case net::SntpConfig::Mode::kDhcp:
      print(dhcp ? "sntp from the servers DHCP names\n"
                 : "sntp from the servers DHCPv6 names (none on the command line: sntp=ADDR)\n");
      return;
    case net::SntpConfig::Mode::kServers:
      print("sntp from");
      for (std::size_t i = 0; i < sntp.server_count; ++i) {
        char text[net::kIpTextMax];
        print(" ");
        print(net::format_ip(sntp.servers[i], text));
      }
      print("\n");
      return;
  }
}

}  // namespace

async::Task<Network> bring_up_network(std::string_view app, const BootInfo& boot,
                                      async::Scope& scope) {
  Network network;
  network.bootargs = fdt::firmware_bootargs(mem::to_pointer(boot.dtb));
  network.ip = net::kQemuUserDefault;
  if (!network.bootargs.empty()) {
    const auto parsed = net::parse_bootargs(network.bootargs);
    if (parsed.error != net::IpConfigError::kNone) {
      console::print_ignoring(app, {"bootargs ip=: ", net::ip_config_error_text(parsed.error)},
                              "using the default");
    } else {
      network.ip = parsed.config;
    }
    const auto parsed6 = net::parse_ip6_bootargs(network.bootargs);
    if (parsed6.error != net::Ip6ConfigError::kNone) {
      console::print_ignoring(app, {"bootargs ip6=: ", net::ip6_config_error_text(parsed6.error)},
                              "using ip6=auto");
    } else {
      network.ip6 = parsed6.config;
    }
    net::apply_peer_shares(app, network.bootargs);
  }
  net::SntpConfig sntp;
  if (text::Line<200> why; !net::parse_sntp_bootargs(network.bootargs, sntp, why)) {
    console::print_ignoring(app, {"bootargs ", why.view()});
  }
  net::configure_sntp(sntp);

  auto nic = board::nic(boot::page_allocator());
  if (!nic.ok()) {
    print_failure(app, "no NIC", nic.error());
    co_return Unexpected(nic.error());
  }
  // The bring-up is one long run until the first wait (the NIC's reset,
  // lwIP's start, the metrics): its steps offer the hart between them, as
  // long work should (docs/stall-detector.md). In QEMU, whose TCG translates
  // all this code for the first time, one run of it took 10 to 30 ms.
  co_await async::yield();
  // One network per image: the netif outlives every task that uses it.
  static std::optional<Netif> netif;
  netif.emplace(**nic);
  if (auto ok = netif->start(network.ip, network.ip6); !ok.ok()) {
    print_failure(app, "netif start", ok.error());
    co_return Unexpected(ok.error());
  }
  co_await async::yield();
  (void)scope.spawn(netif->run());
  register_metrics(app, *netif);
  co_await async::yield();
  if (network.ip.dhcp) {
    print(app);
    print(": DHCP...\n");
  }
  auto address = co_await async::with_timeout(netif->wait_for_address(), kAddressTimeoutNs);
  if (!address.ok()) {
    print_failure(app, "no address", address.error());
    co_return Unexpected(address.error());
  }
  print(app);
  print(": address ");
  print_ip(netif->address());
  print("/");
  console::print_dec(prefix_length(netif->netmask()));
  print(" gw ");
  print_ip(netif->gateway());
  print(network.ip.dhcp ? " (dhcp)\n" : " (static)\n");

  // The wall clock (net/sntp): polled from here on; the console says when
  // it is set. Without servers on the command line it waits for DHCP's.
  net::start_sntp(sntp);
  print_clock_source(app, sntp, network.ip.dhcp);

  print(app);
  print(": entropy from ");
  print(net::entropy_status().source);
  print(net::entropy_status().ok ? "\n" : " unavailable (TCP sequence numbers predictable)\n");
  network.netif = &*netif;
  co_return network;
}

async::Task<int> serve_until_stopped(std::string_view app, async::Scope& scope) {
  print(app);
  print(": ready\n");
  auto joined = co_await scope.join();
  print(app);
  print(": FAIL a service stopped: ");
  print(joined.ok() ? "ok" : error_name(joined.error()));
  print("\n");
  co_return kServiceStopped;
}

}  // namespace starling::board
