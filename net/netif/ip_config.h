#ifndef STARLING_NET_NETIF_IP_CONFIG_H_
#define STARLING_NET_NETIF_IP_CONFIG_H_

#include <cstdint>
#include <string_view>

#include "kernel/lib/result.h"
#include "net/address/ip_address.h"

// How the netif gets its IPv4 address: static (address/prefix, gateway) or
// DHCP. The default is QEMU user networking's: 10.0.2.15/24 via 10.0.2.2.
// The kernel command line (/chosen/bootargs, QEMU's -append) may override it
// with one `ip=` token among space-separated others:
//   ip=dhcp
//   ip=A.B.C.D/PREFIX            (no gateway)
//   ip=A.B.C.D/PREFIX,gw=E.F.G.H
// Addresses are host-order u32 (10.0.2.15 = 0x0A00020F).
namespace starling::net {

struct IpConfig {
  bool dhcp = false;
  std::uint32_t address = 0;
  std::uint32_t netmask = 0;
  std::uint32_t gateway = 0;  // 0: none
};

inline constexpr IpConfig kQemuUserDefault{
    .dhcp = false, .address = 0x0A00020F, .netmask = 0xFFFFFF00, .gateway = 0x0A000202};

// Why a bootargs `ip=` value was refused.
enum class IpConfigError : std::uint8_t {
  kNone,
  kBadAddress,  // not four decimal octets 0..255
  kBadPrefix,   // missing '/', or not 0..32
  kBadGateway,  // `gw=` missing its address or malformed
  kUnknownOption,
  kDuplicate,  // more than one ip= token
};
const char* ip_config_error_text(IpConfigError error);

struct IpConfigParse {
  IpConfig config;
  bool found = false;  // an ip= token was present (and valid when error == kNone)
  IpConfigError error = IpConfigError::kNone;
};

// Parses one "A.B.C.D" (host order).
Result<std::uint32_t> parse_ipv4(std::string_view text);

// Looks for `ip=` in `bootargs`; without one, `fallback` with found=false.
IpConfigParse parse_bootargs(std::string_view bootargs,
                             const IpConfig& fallback = kQemuUserDefault);

// How the netif gets its IPv6 addresses (docs/ipv6.md). A link-local
// address (EUI-64, from the NIC's MAC) is always made unless IPv6 is off.
//   ip6=auto                        (the default) SLAAC from router advertisements
//   ip6=off                         no IPv6 at all
//   ip6=ADDR/PREFIX[,gw=ADDR]       a static address (no SLAAC), and a
//                                   default gateway for off-link destinations
enum class Ip6Mode : std::uint8_t { kAuto, kOff, kStatic };

struct Ip6Config {
  Ip6Mode mode = Ip6Mode::kAuto;
  IpAddress address;  // kStatic: the address
  std::uint8_t prefix_length = 0;
  IpAddress gateway;  // kStatic: :: for none
};

enum class Ip6ConfigError : std::uint8_t {
  kNone,
  kBadAddress,  // not an IPv6 address, or multicast or ::
  kBadPrefix,   // missing '/', or not 1..128
  kBadGateway,  // `gw=` not a unicast IPv6 address
  kUnknownOption,
  kDuplicate,  // more than one ip6= token
};
const char* ip6_config_error_text(Ip6ConfigError error);

struct Ip6ConfigParse {
  Ip6Config config;
  bool found = false;
  Ip6ConfigError error = Ip6ConfigError::kNone;
};

// Looks for `ip6=` in `bootargs`; without one, ip6=auto with found=false.
Ip6ConfigParse parse_ip6_bootargs(std::string_view bootargs);

// An IPv4 network: `address` & `netmask` (host order).
struct Subnet {
  std::uint32_t address = 0;
  std::uint32_t netmask = 0;
  constexpr bool contains(std::uint32_t ip) const { return (ip & netmask) == (address & netmask); }
};

// Parses "A.B.C.D/PREFIX" (PREFIX 0..32). kInvalidArgument otherwise.
Result<Subnet> parse_subnet(std::string_view text);

// "10.0.2.15" into out (at least 16 bytes); the length written.
std::size_t format_ipv4(std::uint32_t address, char* out);

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_IP_CONFIG_H_
