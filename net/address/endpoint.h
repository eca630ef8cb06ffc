#ifndef STARLING_NET_ADDRESS_ENDPOINT_H_
#define STARLING_NET_ADDRESS_ENDPOINT_H_

#include <cstdint>

#include "net/address/ip_address.h"

// An address (IPv4 or IPv6, net/address/ip_address.h) and a port in host byte
// order, as every socket of net/ (UDP, TCP) takes and gives them.
namespace starling::net {

struct Endpoint {
  IpAddress address;
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// An address from its four octets, host order: ipv4(10, 0, 2, 15) == 0x0A00020F.
constexpr std::uint32_t ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return (std::uint32_t{a} << 24) | (std::uint32_t{b} << 16) | (std::uint32_t{c} << 8) |
         std::uint32_t{d};
}

}  // namespace starling::net

#endif  // STARLING_NET_ADDRESS_ENDPOINT_H_
