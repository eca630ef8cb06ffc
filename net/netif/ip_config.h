#ifndef STARLING_NET_NETIF_IP_CONFIG_H_
#define STARLING_NET_NETIF_IP_CONFIG_H_

#include <cstdint>
#include <string_view>

#include "kernel/lib/result.h"

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
