#ifndef STARLING_NET_PORT_ENDPOINT_H_
#define STARLING_NET_PORT_ENDPOINT_H_

#include <cstdint>

// An IPv4 address and port, as every socket of net/ (UDP, TCP) takes and
// gives them: both in host byte order, like net/netif/ip_config.h's
// addresses, so 10.0.2.15 is 0x0A00020F everywhere above lwIP. The
// conversion to lwIP's network-order ip4_addr_t happens once, in the socket
// code (to_lwip / from_lwip in endpoint_lwip.h).
namespace starling::net {

struct Endpoint {
  std::uint32_t address = 0;  // IPv4, host order
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// An address from its four octets, host order: ipv4(10, 0, 2, 15) == 0x0A00020F.
constexpr std::uint32_t ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return (std::uint32_t{a} << 24) | (std::uint32_t{b} << 16) | (std::uint32_t{c} << 8) |
         std::uint32_t{d};
}

}  // namespace starling::net

#endif  // STARLING_NET_PORT_ENDPOINT_H_
