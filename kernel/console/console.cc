#include "kernel/console/console.h"

#include <array>
#include <cstddef>

#include "kernel/hal/board.h"

namespace starling::console {

void print(std::string_view text) {
  // Hand the board whole runs between newlines instead of one byte at a time.
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      continue;
    }
    board::console_write(std::string_view(text.data() + run_start, i - run_start));
    board::console_write("\r\n");
    run_start = i + 1;
  }
  board::console_write(std::string_view(text.data() + run_start, text.size() - run_start));
}

void print_hex(std::uint64_t value) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::array<char, 2 + 16> buffer{};  // "0x" + 16 nibbles of a 64-bit value
  std::size_t pos = buffer.size();
  do {
    buffer[--pos] = kDigits[value & 0xF];
    value >>= 4;
  } while (value != 0);
  buffer[--pos] = 'x';
  buffer[--pos] = '0';
  board::console_write(std::string_view(buffer.data() + pos, buffer.size() - pos));
}

void print_dec(std::int64_t value) {
  // Work on the magnitude as unsigned: negating INT64_MIN as a signed value is UB.
  const bool negative = value < 0;
  std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  std::array<char, 1 + 20> buffer{};  // sign + the 20 digits of 2^64 - 1
  std::size_t pos = buffer.size();
  do {
    buffer[--pos] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (negative) {
    buffer[--pos] = '-';
  }
  board::console_write(std::string_view(buffer.data() + pos, buffer.size() - pos));
}

}  // namespace starling::console
