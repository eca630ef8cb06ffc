#ifndef STARLING_PLATFORM_NETWORK_H_
#define STARLING_PLATFORM_NETWORK_H_

#include <cstdint>
#include <string_view>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/boot/app.h"
#include "net/netif/ip_config.h"
#include "net/netif/netif.h"
#include "platform/nic.h"

// An application's network, brought up the same way on every board: the
// board's NIC, the netif over it, the IPv4 configuration from the kernel
// command line (`ip=`, net/netif/ip_config.h; QEMU user networking's
// 10.0.2.15/24 via 10.0.2.2 without one), the wait for an address and the
// console lines that report it. So an application's main() is about its
// service:
//
//   async::Scope scope;
//   auto network = co_await board::bring_up_network("echo", boot, scope);
//   if (!network.ok()) co_return board::kNetworkFailed;   // printed already
//   ... serve on network->netif ...
//
// Console lines (APP is the name given):
//   APP: ignoring bootargs ip=: <why>; using the default
//   APP: DHCP...                                       (ip=dhcp)
//   APP: address 10.0.2.15/24 gw 10.0.2.2 (static|dhcp)
//   APP: entropy from <source>[ unavailable (...)]
//   APP: FAIL no NIC|netif start|no address: <error>
//   APP: ready                                         (serve_until_stopped)
namespace starling::board {

using Netif = net::Netif<Nic>;

struct Network {
  Netif* netif = nullptr;     // lives as long as the image
  net::IpConfig ip;           // what the netif was started with
  net::Ip6Config ip6;         // IPv6: ip6= on the command line (SLAAC by default)
  std::string_view bootargs;  // /chosen/bootargs, "" without one: the app's own settings
};

// How long bring_up_network waits for an address (static: at once; DHCP:
// the server's answer, then RFC 5227's probe of the lease, 4 to 9 s). A
// lease declined because another host answered the probe is asked for
// again after 10 s (RFC 2131) and probed again: one conflict at boot costs
// up to ~25 s, so the wait allows two.
inline constexpr std::uint64_t kAddressTimeoutNs = 60 * async::kSecond;

// The exit code of an application whose network did not come up.
inline constexpr int kNetworkFailed = 2;
// The exit code of an application whose services stopped (serve_until_stopped).
inline constexpr int kServiceStopped = 5;

// Brings the network up (once per image; the netif's task runs in `scope`,
// which must outlive every use of the netif). On failure the console line
// is printed and the error returned; applications exit with kNetworkFailed.
async::Task<Network> bring_up_network(std::string_view app, const BootInfo& boot,
                                      async::Scope& scope);

// An application's last step, once its services run in `scope`: prints
// "APP: ready" (what the tests wait for), waits for the services, which end
// only when one fails, and says so:
//   APP: FAIL a service stopped: <error, or ok>
// Returns kServiceStopped, for starling_app_main to exit with.
async::Task<int> serve_until_stopped(std::string_view app, async::Scope& scope);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_NETWORK_H_
