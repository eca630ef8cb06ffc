#ifndef STARLING_NET_PORT_IP6_GATEWAY_H_
#define STARLING_NET_PORT_IP6_GATEWAY_H_

#include "net/address/ip_address.h"

// A static IPv6 default gateway (ip6=ADDR/PREFIX,gw=ADDR): lwIP learns
// routers only from advertisements, so the next hop for an off-link
// destination comes through its LWIP_HOOK_ND6_GET_GW hook
// (starling_nd6_gateway, net/lwip/arch/hooks.h) while one is set. An
// advertised router is not consulted while a static gateway is set.
namespace starling::net {

// `gateway` as the next hop off-link; :: (or an IPv4 address) clears it.
void set_ip6_default_gateway(const IpAddress& gateway) noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_PORT_IP6_GATEWAY_H_
