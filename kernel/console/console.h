#ifndef STARLING_KERNEL_CONSOLE_CONSOLE_H_
#define STARLING_KERNEL_CONSOLE_CONSOLE_H_

#include <cstdint>
#include <string_view>

// Text output for humans and for tests that read the serial log. Writes go
// straight to board::console_write (polled, no buffering), so a line printed
// just before a hang or shutdown is never lost in a buffer.
namespace starling::console {

// Prints `text`, turning each "\n" into "\r\n": serial terminals need the
// carriage return, and no driver adds it.
void print(std::string_view text);

// `value` in hexadecimal with a "0x" prefix and no leading zeros ("0x0" for 0).
void print_hex(std::uint64_t value);

// `value` in decimal, with a leading '-' when negative.
void print_dec(std::int64_t value);

// True when no print is in progress and the last one ended its line: where
// a report from an interrupt (the stall detector's) can start without
// cutting someone's line in two (tests grep whole lines).
bool at_line_start();

}  // namespace starling::console

#endif  // STARLING_KERNEL_CONSOLE_CONSOLE_H_
