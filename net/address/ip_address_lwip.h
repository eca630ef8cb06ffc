#ifndef STARLING_NET_ADDRESS_IP_ADDRESS_LWIP_H_
#define STARLING_NET_ADDRESS_IP_ADDRESS_LWIP_H_

#include "lwip/ip_addr.h"
#include "net/address/ip_address.h"

// IpAddress to and from lwIP's ip_addr_t: the one place the byte orders
// meet (lwIP keeps both families in network order). Used by the socket code
// (net/udp, net/tcp) and the netif; nothing above them sees ip_addr_t.
// The copies are the compiler's builtins: under -ffreestanding std::memcpy
// is an ordinary call, ~40 instructions for 16 bytes, and these run for
// every IPv6 datagram sent and received (issue 49 item 5: udp_echo6 paid
// 158 instructions a packet in memcpy here, udp_echo none).
namespace starling::net {

inline ip_addr_t to_lwip(const IpAddress& address) noexcept {
  ip_addr_t out;
  if (address.is_v4()) {
    ip_addr_set_ip4_u32_val(out, lwip_htonl(address.v4_host_order()));
  } else {
    __builtin_memset(&out, 0, sizeof out);
    IP_SET_TYPE_VAL(out, IPADDR_TYPE_V6);
    __builtin_memcpy(ip_2_ip6(&out)->addr, address.v6_bytes().data(), 16);
    ip6_addr_clear_zone(ip_2_ip6(&out));
  }
  return out;
}

inline IpAddress from_lwip(const ip_addr_t& address) noexcept {
  if (IP_IS_V6_VAL(address)) {
    IpAddress::V6Bytes bytes;
    __builtin_memcpy(bytes.data(), ip_2_ip6(&address)->addr, 16);
    return IpAddress::v6(bytes);
  }
  return IpAddress::v4(lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&address))));
}

}  // namespace starling::net

#endif  // STARLING_NET_ADDRESS_IP_ADDRESS_LWIP_H_
