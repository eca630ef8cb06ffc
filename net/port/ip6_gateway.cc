#include "net/port/ip6_gateway.h"

#include "net/address/ip_address_lwip.h"
#include "net/lwip/arch/hooks.h"

namespace starling::net {
namespace {

constinit ip6_addr_t g_gateway{};
constinit bool g_has_gateway = false;

}  // namespace

void set_ip6_default_gateway(const IpAddress& gateway) noexcept {
  g_has_gateway = gateway.is_v6() && !gateway.is_unspecified();
  if (!g_has_gateway) return;
  const ip_addr_t address = to_lwip(gateway);
  ip6_addr_copy(g_gateway, *ip_2_ip6(&address));
}

}  // namespace starling::net

// nd6's next hop for a destination it found off-link: the static gateway,
// or nullptr (lwIP then picks an advertised router).
extern "C" const ip6_addr_t* starling_nd6_gateway(struct netif* /*netif*/,
                                                  const ip6_addr_t* /*destination*/) {
  return starling::net::g_has_gateway ? &starling::net::g_gateway : nullptr;
}
