#ifndef STARLING_KERNEL_CONSOLE_CONSOLE_H_
#define STARLING_KERNEL_CONSOLE_CONSOLE_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "kernel/text/writer.h"

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

// A setting refused, in the one shape every refusal on the console has:
//
//   WHO: ignoring WHAT; THEN
//
// WHO is the app or the part that read the setting ("echo", "star64",
// "Starling"); WHAT names the setting and says what is wrong with it (given
// in pieces, joined: {"bootargs ip=: ", error_text}); THEN, if not empty,
// what is in force instead or the fix ("using the default", "fix: setenv
// bootargs ..."). Operators and tests grep for ": ignoring ", so the shape
// is fixed here. format_ignoring() writes it, without the newline, into
// `out`; print_ignoring() prints it as one line.
void format_ignoring(text::TextWriter& out, std::string_view who,
                     std::initializer_list<std::string_view> what, std::string_view then = {});
void print_ignoring(std::string_view who, std::initializer_list<std::string_view> what,
                    std::string_view then = {});

// True when no print is in progress and the last one ended its line: where
// a report from an interrupt (the stall detector's) can start without
// cutting someone's line in two (tests grep whole lines).
bool at_line_start();

}  // namespace starling::console

#endif  // STARLING_KERNEL_CONSOLE_CONSOLE_H_
