#include "platform/star64/mac_address.h"

#include "kernel/fdt/chosen.h"
#include "kernel/lib/bootargs.h"

namespace starling::board {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_zero(const hal::MacAddress& mac) {
  for (std::uint8_t b : mac.bytes) {
    if (b != 0) return false;
  }
  return true;
}

std::optional<fdt::Node> gmac0_node(const fdt::DeviceTree& tree) {
  // U-Boot fixes up the node the alias names: prefer it over the fixed path.
  if (auto aliases = tree.find_node("/aliases")) {
    if (auto alias = tree.find_property(*aliases, kGmac0Alias)) {
      if (auto path = alias->as_string(); path.ok()) {
        if (auto node = tree.find_node(*path)) return node;
      }
    }
  }
  return tree.find_node(kGmac0Path);
}

}  // namespace

const char* mac_error_text(MacError error) {
  switch (error) {
    case MacError::kNone:
      return "ok";
    case MacError::kMalformed:
      return "not a MAC address (want six hex pairs, e.g. starling.mac=6c:cf:39:00:12:34)";
    case MacError::kMulticast:
      return "a multicast address (the first byte must be even, e.g. 6c:...)";
    case MacError::kZero:
      return "the all-zero address";
    case MacError::kDuplicate:
      return "more than one starling.mac= token";
  }
  return "?";
}

const char* mac_source_text(MacSource source) {
  switch (source) {
    case MacSource::kDefault:
      return "default";
    case MacSource::kDeviceTree:
      return "device tree";
    case MacSource::kBootargs:
      return "bootargs";
  }
  return "?";
}

MacError parse_mac(std::string_view text, hal::MacAddress* out) {
  // "xx:xx:xx:xx:xx:xx": 6 pairs, 5 colons.
  if (text.size() != 17) return MacError::kMalformed;
  hal::MacAddress mac;
  for (std::size_t i = 0; i < 6; ++i) {
    const int high = hex_digit(text[3 * i]);
    const int low = hex_digit(text[3 * i + 1]);
    if (high < 0 || low < 0) return MacError::kMalformed;
    if (i != 5 && text[3 * i + 2] != ':') return MacError::kMalformed;
    mac.bytes[i] = static_cast<std::uint8_t>(high << 4 | low);
  }
  if (is_zero(mac)) return MacError::kZero;
  if (mac.bytes[0] & 1) return MacError::kMulticast;
  *out = mac;
  return MacError::kNone;
}

MacBootarg parse_mac_bootargs(std::string_view bootargs) {
  MacBootarg result;
  // The key is the token's prefix without its '='.
  const BootargValue arg = bootarg_value(bootargs, kMacBootarg.substr(0, kMacBootarg.size() - 1));
  result.found = arg.found;
  if (!arg.found) return result;
  result.error = arg.repeated ? MacError::kDuplicate : parse_mac(arg.value, &result.mac);
  return result;
}

Result<hal::MacAddress> device_tree_mac(const fdt::DeviceTree& tree) {
  const auto node = gmac0_node(tree);
  if (!node) return Unexpected(Error::kNotFound);
  auto property = tree.find_property(*node, "local-mac-address");
  if (!property) property = tree.find_property(*node, "mac-address");
  if (!property) return Unexpected(Error::kNotFound);
  const auto bytes = property->bytes();
  if (bytes.size() != 6) return Unexpected(Error::kMalformed);
  hal::MacAddress mac;
  for (std::size_t i = 0; i < 6; ++i) mac.bytes[i] = static_cast<std::uint8_t>(bytes[i]);
  if (is_zero(mac)) return Unexpected(Error::kNotFound);
  return mac;
}

MacChoice choose_mac(const fdt::DeviceTree* tree) {
  MacChoice choice;
  if (tree == nullptr) return choice;
  if (auto mac = device_tree_mac(*tree); mac.ok()) {
    choice.mac = *mac;
    choice.source = MacSource::kDeviceTree;
  } else {
    choice.device_tree_malformed = mac.error() == Error::kMalformed;
  }
  auto chosen = fdt::read_chosen(*tree);
  if (!chosen.ok() || !chosen->bootargs) return choice;
  const MacBootarg arg = parse_mac_bootargs(*chosen->bootargs);
  if (arg.error != MacError::kNone) {
    choice.bootarg_error = arg.error;
  } else if (arg.found) {
    choice.mac = arg.mac;
    choice.source = MacSource::kBootargs;
  }
  return choice;
}

}  // namespace starling::board
