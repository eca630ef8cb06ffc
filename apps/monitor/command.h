#ifndef STARLING_APPS_MONITOR_COMMAND_H_
#define STARLING_APPS_MONITOR_COMMAND_H_

#include <cstdint>
#include <string_view>

// The monitor's command-line grammar, apart from the console so host tests
// and //fuzz/monitor_command can drive it: a command word, then an optional
// argument, separated and surrounded by any number of spaces.
namespace starling::monitor {

// "sleep 250" -> command "sleep", argument "250" (views into the line).
struct CommandLine {
  std::string_view command;
  std::string_view argument;
};

CommandLine split(std::string_view line);

// A non-negative decimal number of at most 12 digits, or -1 for anything
// else (empty, a sign, a non-digit, too long).
std::int64_t parse_number(std::string_view text);

}  // namespace starling::monitor

#endif  // STARLING_APPS_MONITOR_COMMAND_H_
