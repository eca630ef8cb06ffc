#ifndef STARLING_KERNEL_WALL_CLOCK_CALENDAR_H_
#define STARLING_KERNEL_WALL_CLOCK_CALENDAR_H_

#include <cstdint>

#include "kernel/text/writer.h"

// UTC dates from seconds since 1970-01-01T00:00:00Z (the Unix epoch, leap
// seconds not counted, as POSIX and NTP's era arithmetic count them): the
// proleptic Gregorian calendar, for the wall clock's console lines, HTTP's
// Date header and TLS's certificate dates.
namespace starling::wall_clock {

struct Civil {
  std::int64_t year = 1970;
  unsigned month = 1;    // 1..12
  unsigned day = 1;      // 1..31
  unsigned hour = 0;     // 0..23
  unsigned minute = 0;   // 0..59
  unsigned second = 0;   // 0..59
  unsigned weekday = 4;  // 0 = Sunday (1970-01-01 was a Thursday)
};

// The date and time `unix_seconds` after the epoch (before it if negative).
Civil to_civil(std::int64_t unix_seconds) noexcept;

// Seconds since the epoch of a UTC date and time (fields in Civil's ranges;
// weekday ignored).
std::int64_t to_unix(const Civil& civil) noexcept;

// RFC 9110's IMF-fixdate, the form an HTTP Date header takes:
// "Sun, 06 Nov 1994 08:49:37 GMT" (29 characters; years 0..9999).
void write_http_date(std::int64_t unix_seconds, text::TextWriter& out);

// RFC 3339 in UTC, as the console prints it: "2026-12-06T12:41:34Z".
void write_rfc3339(std::int64_t unix_seconds, text::TextWriter& out);

}  // namespace starling::wall_clock

#endif  // STARLING_KERNEL_WALL_CLOCK_CALENDAR_H_
