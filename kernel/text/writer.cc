#include "kernel/text/writer.h"

namespace starling::text {

void TextWriter::put(std::string_view text) {
  for (char c : text) put(c);
}

void TextWriter::put_decimal(std::uint64_t value) {
  char digits[20];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n != 0) put(digits[--n]);
}

void TextWriter::put_signed(std::int64_t value) {
  // The magnitude as unsigned: negating INT64_MIN as a signed value is UB.
  if (value < 0) put('-');
  put_decimal(value < 0 ? 0 - static_cast<std::uint64_t>(value)
                        : static_cast<std::uint64_t>(value));
}

void TextWriter::put_hex(std::uint64_t value, unsigned min_digits, bool upper) {
  unsigned digits = 1;
  while (digits < 16 && (value >> (4 * digits)) != 0) ++digits;
  if (digits < min_digits) digits = min_digits > 16 ? 16 : min_digits;
  while (digits-- > 0) put(hex_digit(static_cast<unsigned>(value >> (4 * digits)), upper));
}

void TextWriter::put_fixed(std::uint64_t value, unsigned decimals) {
  std::uint64_t scale = 1;
  for (unsigned i = 0; i < decimals; ++i) scale *= 10;
  put_decimal(value / scale);
  if (decimals == 0) return;
  put('.');
  const std::uint64_t fraction = value % scale;
  for (unsigned i = decimals; i-- > 0;) {
    std::uint64_t digit = fraction;
    for (unsigned j = 0; j < i; ++j) digit /= 10;
    put(static_cast<char>('0' + digit % 10));
  }
}

}  // namespace starling::text
