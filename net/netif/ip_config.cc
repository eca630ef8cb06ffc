#include "net/netif/ip_config.h"

#include "kernel/lib/bootargs.h"
#include "net/address/ip_address.h"

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

// The shape ip= and ip6= share: "ADDRESS/PREFIX[,gw=GATEWAY]", split.
struct StaticValue {
  std::string_view address;
  bool has_prefix = false;  // a '/' followed the address
  std::string_view prefix;
  bool has_option = false;  // a ',' followed
  bool option_is_gateway = false;
  std::string_view gateway;  // after "gw="
};

StaticValue split_static(std::string_view value) {
  StaticValue v;
  std::string_view first = value;
  if (const auto comma = value.find(','); comma != std::string_view::npos) {
    first = value.substr(0, comma);
    const std::string_view rest = value.substr(comma + 1);
    v.has_option = true;
    v.option_is_gateway = rest.substr(0, 3) == "gw=";
    if (v.option_is_gateway) v.gateway = rest.substr(3);
  }
  const auto slash = first.find('/');
  v.address = first.substr(0, slash);
  if (slash != std::string_view::npos) {
    v.has_prefix = true;
    v.prefix = first.substr(slash + 1);
  }
  return v;
}

// One `KEY=` token of the command line through `parse`: not found, found
// twice (kDuplicate), or parsed (the parse's error, the config only when none).
template <typename Parse, typename Config, typename ParseResult>
ParseResult parse_token(std::string_view bootargs, std::string_view key, ParseResult result,
                        Parse parse) {
  const BootargValue token = bootarg_value(bootargs, key);
  result.found = token.found;
  if (!token.found) return result;
  using ErrorType = decltype(result.error);
  if (token.repeated) {
    result.error = ErrorType::kDuplicate;
    return result;
  }
  Config parsed{};
  result.error = parse(token.value, &parsed);
  if (result.error == ErrorType::kNone) result.config = parsed;
  return result;
}

IpConfigError parse_value(std::string_view value, IpConfig* config) {
  if (value == "dhcp") {
    *config = IpConfig{.dhcp = true};
    return IpConfigError::kNone;
  }
  const StaticValue v = split_static(value);
  if (!v.has_prefix) {
    // An address alone is a malformed prefix if the address parses.
    return parse_ipv4(v.address).ok() ? IpConfigError::kBadPrefix : IpConfigError::kBadAddress;
  }
  auto address = parse_ipv4(v.address);
  if (!address.ok()) return IpConfigError::kBadAddress;
  std::uint32_t prefix = 0;
  if (!parse_decimal(v.prefix, 32, &prefix)) return IpConfigError::kBadPrefix;
  IpConfig parsed{
      .dhcp = false, .address = *address, .netmask = prefix_to_mask(prefix), .gateway = 0};
  if (v.has_option) {
    if (!v.option_is_gateway) return IpConfigError::kUnknownOption;
    auto gateway = parse_ipv4(v.gateway);
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
  const auto parsed = parse_ip(text);
  if (!parsed || !parsed->is_v4()) return Unexpected(Error::kInvalidArgument);
  return parsed->v4_host_order();
}

IpConfigParse parse_bootargs(std::string_view bootargs, const IpConfig& fallback) {
  return parse_token<decltype(&parse_value), IpConfig>(
      bootargs, "ip", IpConfigParse{.config = fallback}, &parse_value);
}

const char* ip6_config_error_text(Ip6ConfigError error) {
  switch (error) {
    case Ip6ConfigError::kNone:
      return "ok";
    case Ip6ConfigError::kBadAddress:
      return "bad address (want a unicast IPv6 address, e.g. 2001:db8::15/64; or auto, or off)";
    case Ip6ConfigError::kBadPrefix:
      return "bad prefix length (want /1../128, e.g. 2001:db8::15/64)";
    case Ip6ConfigError::kBadGateway:
      return "bad gateway (want gw= and a unicast IPv6 address, e.g. gw=fe80::1)";
    case Ip6ConfigError::kUnknownOption:
      return "unknown option after the address (only gw= is known)";
    case Ip6ConfigError::kDuplicate:
      return "more than one ip6= token";
  }
  return "?";
}

namespace {

bool unicast_v6(const std::optional<IpAddress>& a) {
  return a && a->is_v6() && !a->is_multicast() && !a->is_unspecified();
}

Ip6ConfigError parse_ip6_value(std::string_view value, Ip6Config* config) {
  if (value == "auto" || value == "off") {
    *config = Ip6Config{};
    config->mode = value == "off" ? Ip6Mode::kOff : Ip6Mode::kAuto;
    return Ip6ConfigError::kNone;
  }
  const StaticValue v = split_static(value);
  const auto address = parse_ip(v.address);
  if (!unicast_v6(address)) return Ip6ConfigError::kBadAddress;
  std::uint32_t prefix = 0;
  if (!v.has_prefix || !parse_decimal(v.prefix, 128, &prefix) || prefix == 0) {
    return Ip6ConfigError::kBadPrefix;
  }
  Ip6Config parsed{.mode = Ip6Mode::kStatic,
                   .address = *address,
                   .prefix_length = static_cast<std::uint8_t>(prefix),
                   .gateway = IpAddress::v6({})};
  if (v.has_option) {
    if (!v.option_is_gateway) return Ip6ConfigError::kUnknownOption;
    const auto gateway = parse_ip(v.gateway);
    if (!unicast_v6(gateway)) return Ip6ConfigError::kBadGateway;
    parsed.gateway = *gateway;
  }
  *config = parsed;
  return Ip6ConfigError::kNone;
}

}  // namespace

Ip6ConfigParse parse_ip6_bootargs(std::string_view bootargs) {
  return parse_token<decltype(&parse_ip6_value), Ip6Config>(bootargs, "ip6", Ip6ConfigParse{},
                                                            &parse_ip6_value);
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
  return format_ip(IpAddress::v4(address), std::span<char>(out, 16)).size();
}

}  // namespace starling::net
