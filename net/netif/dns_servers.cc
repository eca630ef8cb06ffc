#include "net/netif/dns_servers.h"

#include <array>

#include "kernel/console/console.h"
#include "lwip/dns.h"
#include "lwip/timeouts.h"
#include "net/address/ip_address_lwip.h"

namespace starling::net {
namespace {

constexpr u32_t kCheckMs = 1000;

constinit DnsServerStats g_stats{};
constinit bool g_watching = false;
constinit std::array<ip_addr_t, DNS_MAX_SERVERS> g_printed{};

void check(void* /*arg*/) noexcept {
  bool changed = false;
  std::uint64_t count = 0;
  for (u8_t i = 0; i < DNS_MAX_SERVERS; ++i) {
    const ip_addr_t* now = dns_getserver(i);
    if (!ip_addr_eq(now, &g_printed[i])) changed = true;
    if (!ip_addr_isany(now)) ++count;
  }
  if (changed) {
    ++g_stats.changes;
    g_stats.count = count;
    console::print(count == 0 ? "net: dns servers none" : "net: dns servers");
    for (u8_t i = 0; i < DNS_MAX_SERVERS; ++i) {
      const ip_addr_t* now = dns_getserver(i);
      ip_addr_copy(g_printed[i], *now);
      if (ip_addr_isany(now)) continue;
      char text[kIpTextMax];
      console::print(" ");
      console::print(format_ip(from_lwip(*now), text));
    }
    console::print("\n");
  }
  sys_timeout(kCheckMs, &check, nullptr);
}

}  // namespace

void watch_dns_servers() noexcept {
  if (g_watching) return;
  g_watching = true;
  for (u8_t i = 0; i < DNS_MAX_SERVERS; ++i) ip_addr_copy(g_printed[i], *dns_getserver(i));
  sys_timeout(kCheckMs, &check, nullptr);
}

const DnsServerStats& dns_server_stats() noexcept {
  return g_stats;
}

}  // namespace starling::net
