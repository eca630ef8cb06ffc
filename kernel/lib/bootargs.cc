#include "kernel/lib/bootargs.h"

#include <charconv>
#include <system_error>

namespace starling {

BootargValue bootarg_value(std::string_view bootargs, std::string_view key) {
  BootargValue result;
  while (!bootargs.empty()) {
    const auto space = bootargs.find(' ');
    const std::string_view token = bootargs.substr(0, space);
    bootargs = space == std::string_view::npos ? std::string_view{} : bootargs.substr(space + 1);
    if (token.size() > key.size() && token.substr(0, key.size()) == key &&
        token[key.size()] == '=') {
      if (result.found) {
        result.repeated = true;
        return result;
      }
      result = {.value = token.substr(key.size() + 1), .found = true};
    }
  }
  return result;
}

bool parse_bootarg_number(std::string_view text, std::uint64_t low, std::uint64_t high,
                          std::uint64_t* out) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || stop != end || value < low || value > high) {
    return false;
  }
  *out = value;
  return true;
}

}  // namespace starling
