#include "kernel/wall_clock/calendar.h"

#include <string_view>

namespace starling::wall_clock {
namespace {

constexpr std::int64_t kSecondsPerDay = 86'400;
// Days from 0000-03-01 to 1970-01-01: the count below starts its years in
// March, so a leap day is the last day of its year.
constexpr std::int64_t kEpochShift = 719'468;
constexpr std::int64_t kDaysPerEra = 146'097;  // 400 Gregorian years

// Floor division: the days and seconds of dates before 1970 count down.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Out of line, one copy: the two formats below call it a dozen times
// (inlined, write_rfc3339 alone was 1.7 KB of .text).
[[gnu::noinline]] void put_two(text::TextWriter& out, unsigned value, char after) {
  out.put(static_cast<char>('0' + value / 10 % 10));
  out.put(static_cast<char>('0' + value % 10));
  if (after != 0) out.put(after);
}

void put_year(text::TextWriter& out, std::int64_t year, char after) {
  const auto y = static_cast<unsigned>(year < 0 ? 0 : year > 9999 ? 9999 : year);
  put_two(out, y / 100, 0);
  put_two(out, y % 100, after);
}

// hh:mm:ss
void put_time(text::TextWriter& out, const Civil& c) {
  put_two(out, c.hour, ':');
  put_two(out, c.minute, ':');
  put_two(out, c.second, 0);
}

}  // namespace

Civil to_civil(std::int64_t unix_seconds) noexcept {
  const std::int64_t days = floor_div(unix_seconds, kSecondsPerDay);
  const std::int64_t secs = unix_seconds - days * kSecondsPerDay;
  // Eras of 400 years from 0000-03-01; within one, the year of March to
  // February, the day of that year, the month counted from March.
  const std::int64_t z = days + kEpochShift;
  const std::int64_t era = floor_div(z, kDaysPerEra);
  const std::int64_t doe = z - era * kDaysPerEra;                                  // 0..146096
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // 0..399
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // 0..365
  const std::int64_t mp = (5 * doy + 2) / 153;                                     // 0 = March
  Civil c;
  c.day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
  c.hour = static_cast<unsigned>(secs / 3600);
  c.minute = static_cast<unsigned>(secs / 60 % 60);
  c.second = static_cast<unsigned>(secs % 60);
  const std::int64_t weekday = (days + 4) % 7;  // 1970-01-01 was a Thursday
  c.weekday = static_cast<unsigned>(weekday < 0 ? weekday + 7 : weekday);
  return c;
}

std::int64_t to_unix(const Civil& civil) noexcept {
  const std::int64_t y = civil.year - (civil.month <= 2 ? 1 : 0);
  const std::int64_t era = floor_div(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = civil.month > 2 ? civil.month - 3 : civil.month + 9;
  const std::int64_t doy = (153 * mp + 2) / 5 + civil.day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = era * kDaysPerEra + doe - kEpochShift;
  return days * kSecondsPerDay + civil.hour * 3600 + civil.minute * 60 + civil.second;
}

void write_http_date(std::int64_t unix_seconds, text::TextWriter& out) {
  static constexpr char kDays[] = "SunMonTueWedThuFriSat";
  static constexpr char kMonths[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const Civil c = to_civil(unix_seconds);
  out.put(std::string_view(&kDays[c.weekday * 3], 3));
  out.put(", ");
  put_two(out, c.day, ' ');
  out.put(std::string_view(&kMonths[(c.month - 1) * 3], 3));
  out.put(' ');
  put_year(out, c.year, ' ');
  put_time(out, c);
  out.put(" GMT");
}

void write_rfc3339(std::int64_t unix_seconds, text::TextWriter& out) {
  const Civil c = to_civil(unix_seconds);
  put_year(out, c.year, '-');
  put_two(out, c.month, '-');
  put_two(out, c.day, 'T');
  put_time(out, c);
  out.put('Z');
}

}  // namespace starling::wall_clock
