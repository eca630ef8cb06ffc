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

NumberParamReading read_number(std::string_view bootargs, std::string_view key, std::uint64_t low,
                               std::uint64_t high, std::uint64_t fallback, bool off,
                               text::TextWriter& why) {
  NumberParamReading reading{.value = fallback};
  const BootargValue arg = bootarg_value(bootargs, key);
  reading.found = arg.found;
  if (!arg.found) return reading;
  std::uint64_t n = 0;
  if (!arg.repeated && off && arg.value == "off") {
    reading.value = 0;
    return reading;
  }
  if (!arg.repeated && parse_bootarg_number(arg.value, low, high, &n)) {
    reading.value = n;
    return reading;
  }
  reading.refused = true;
  why.put(key);
  why.put('=');
  if (arg.repeated) {
    why.put(": given twice");
  } else {
    why.put(arg.value);
    why.put(": not ");
    why.put_decimal(low);
    why.put(" to ");
    why.put_decimal(high);
    if (off) why.put(" or off");
  }
  why.put("; fix: ");
  why.put(key);
  why.put('=');
  why.put_decimal(fallback);
  return reading;
}

}  // namespace starling
