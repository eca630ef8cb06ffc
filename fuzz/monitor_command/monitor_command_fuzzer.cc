// Fuzzes the monitor's command grammar (apps/monitor/command.h): a line typed
// on the serial console. Besides "no crash, no UB", checks what it promises:
// the command and argument are views inside the line with no spaces at
// their ends, the command has no space in it, and a number parses only from
// 1-12 digits, to the value those digits spell.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apps/monitor/command.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

bool inside(std::string_view part, std::string_view line) {
  return part.empty() ||
         (part.data() >= line.data() && part.data() + part.size() <= line.data() + line.size());
}

bool trimmed(std::string_view s) {
  return s.empty() || (s.front() != ' ' && s.back() != ' ');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto [command, argument] = starling::monitor::split(line);
  check(inside(command, line) && inside(argument, line));
  check(trimmed(command) && trimmed(argument));
  check(command.find(' ') == std::string_view::npos);
  check(!command.empty() || argument.empty());
  const std::int64_t n = starling::monitor::parse_number(argument);
  bool digits = !argument.empty() && argument.size() <= 12;
  std::int64_t value = 0;
  for (char c : argument) {
    digits = digits && c >= '0' && c <= '9';
    if (digits) value = value * 10 + (c - '0');
  }
  check(n == (digits ? value : -1));
  return 0;
}
