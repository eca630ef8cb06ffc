#include "net/netif/ip_config.h"

#include "kernel/lib/bootargs.h"

namespace starling::net {
namespace {

bool parse_decimal(std::string_view text, std::uint32_t max, std::uint32_t* out) {
  if (text.empty() || text.size() > 3) return false;
  std::uint32_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (value > max) return false;
  *out = value;
  return true;
}

std::uint32_t prefix_to_mask(std::uint32_t prefix) {
  return prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
}

IpConfigError parse_value(std::string_view value, IpConfig* config) {
  if (value == "dhcp") {
    *config = IpConfig{.dhcp = true};
    return IpConfigError::kNone;
  }
  std::string_view first = value;
  std::string_view rest;
  if (const auto comma = value.find(','); comma != std::string_view::npos) {
    first = value.substr(0, comma);
    rest = value.substr(comma + 1);
  }
  const auto slash = first.find('/');
  if (slash == std::string_view::npos) {
    // An address alone is a malformed prefix if the address parses.
    return parse_ipv4(first).ok() ? IpConfigError::kBadPrefix : IpConfigError::kBadAddress;
  }
  auto address = parse_ipv4(first.substr(0, slash));
  if (!address.ok()) return IpConfigError::kBadAddress;
  std::uint32_t prefix = 0;
  if (!parse_decimal(first.substr(slash + 1), 32, &prefix)) return IpConfigError::kBadPrefix;
  IpConfig parsed{
      .dhcp = false, .address = *address, .netmask = prefix_to_mask(prefix), .gateway = 0};
  if (value.find(',') != std::string_view::npos) {
    if (rest.substr(0, 3) != "gw=") return IpConfigError::kUnknownOption;
    auto gateway = parse_ipv4(rest.substr(3));
    if (!gateway.ok()) return IpConfigError::kBadGateway;
    parsed.gateway = *gateway;
  }
  *config = parsed;
  return IpConfigError::kNone;
}

}  // namespace

const char* ip_config_error_text(IpConfigError error) {
  switch (error) {
    case IpConfigError::kNone:
      return "ok";
    case IpConfigError::kBadAddress:
      return "bad address (want four octets 0..255, e.g. 10.0.2.15)";
    case IpConfigError::kBadPrefix:
      return "bad prefix (want /0../32, e.g. 10.0.2.15/24)";
    case IpConfigError::kBadGateway:
      return "bad gateway (want gw=A.B.C.D)";
    case IpConfigError::kUnknownOption:
      return "unknown option after the address (only gw= is known)";
    case IpConfigError::kDuplicate:
      return "more than one ip= token";
  }
  return "?";
}

Result<std::uint32_t> parse_ipv4(std::string_view text) {
  std::uint32_t address = 0;
  for (int i = 0; i < 4; ++i) {
    const auto dot = text.find('.');
    const bool last = i == 3;
    if (last != (dot == std::string_view::npos)) return Unexpected(Error::kInvalidArgument);
    std::uint32_t octet = 0;
    if (!parse_decimal(last ? text : text.substr(0, dot), 255, &octet)) {
      return Unexpected(Error::kInvalidArgument);
    }
    address = address << 8 | octet;
    if (!last) text = text.substr(dot + 1);
  }
  return address;
}

IpConfigParse parse_bootargs(std::string_view bootargs, const IpConfig& fallback) {
  IpConfigParse result{.config = fallback};
  const BootargValue ip = bootarg_value(bootargs, "ip");
  result.found = ip.found;
  if (!ip.found) return result;
  if (ip.repeated) {
    result.error = IpConfigError::kDuplicate;
    return result;
  }
  IpConfig parsed;
  result.error = parse_value(ip.value, &parsed);
  if (result.error == IpConfigError::kNone) result.config = parsed;
  return result;
}

Result<Subnet> parse_subnet(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return Unexpected(Error::kInvalidArgument);
  auto address = parse_ipv4(text.substr(0, slash));
  std::uint32_t prefix = 0;
  if (!address.ok() || !parse_decimal(text.substr(slash + 1), 32, &prefix)) {
    return Unexpected(Error::kInvalidArgument);
  }
  return Subnet{.address = *address, .netmask = prefix_to_mask(prefix)};
}

std::size_t format_ipv4(std::uint32_t address, char* out) {
  std::size_t n = 0;
  for (int i = 3; i >= 0; --i) {
    const std::uint32_t octet = (address >> (8 * i)) & 0xFF;
    if (octet >= 100) out[n++] = static_cast<char>('0' + octet / 100);
    if (octet >= 10) out[n++] = static_cast<char>('0' + octet / 10 % 10);
    out[n++] = static_cast<char>('0' + octet % 10);
    if (i != 0) out[n++] = '.';
  }
  return n;
}

}  // namespace starling::net
