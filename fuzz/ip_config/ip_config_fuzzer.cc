// Fuzzes the bootargs `ip=` parser (net/netif/ip_config.h): the kernel command
// line comes from the bootloader or QEMU's -append, outside the kernel's
// control. Besides "no crash, no UB", checks what the parser promises: a
// refusal keeps the fallback, a static address has a contiguous netmask, and
// every accepted address formats and parses back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/netif/ip_config.h"

namespace {

using starling::net::format_ipv4;
using starling::net::IpConfig;
using starling::net::IpConfigError;
using starling::net::parse_bootargs;
using starling::net::parse_ipv4;

constexpr IpConfig kFallback{.dhcp = false, .address = 1, .netmask = 2, .gateway = 3};

void check(bool condition) {
  if (!condition) std::abort();
}

bool same(const IpConfig& a, const IpConfig& b) {
  return a.dhcp == b.dhcp && a.address == b.address && a.netmask == b.netmask &&
         a.gateway == b.gateway;
}

void check_round_trip(std::uint32_t address) {
  char text[16];
  const std::size_t length = format_ipv4(address, text);
  check(length >= 7 && length <= 15);
  auto parsed = parse_ipv4(std::string_view(text, length));
  check(parsed.ok() && *parsed == address);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto address = parse_ipv4(text); address.ok()) check_round_trip(*address);

  const auto parse = parse_bootargs(text, kFallback);
  check(starling::net::ip_config_error_text(parse.error) != nullptr);
  if (!parse.found || parse.error != IpConfigError::kNone) {
    check(same(parse.config, kFallback));
    check(parse.found || parse.error == IpConfigError::kNone);
    return 0;
  }
  check(text.find("ip=") != std::string_view::npos);
  if (parse.config.dhcp) return 0;
  // A prefix length's mask: ones then zeros.
  const std::uint32_t inverted = ~parse.config.netmask;
  check((inverted & (inverted + 1)) == 0);
  check_round_trip(parse.config.address);
  if (parse.config.gateway != 0) check_round_trip(parse.config.gateway);
  return 0;
}
