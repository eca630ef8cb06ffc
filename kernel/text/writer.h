#ifndef STARLING_KERNEL_TEXT_WRITER_H_
#define STARLING_KERNEL_TEXT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

// The kernel's one bounded formatter: text into a caller's buffer, never
// past its end (what does not fit is dropped and overflowed() says so), with
// decimal, signed, hexadecimal and fixed-point numbers. The metrics page,
// the stats line, the HTTP response head, address formatting, the console's
// numbers and lwIP's diagnostics (printf.h) all write through it; a line
// for the console is a text::Line, printed once it is whole.
namespace starling::text {

// A hexadecimal digit, 0 to 15.
constexpr char hex_digit(unsigned value, bool upper = false) {
  return (upper ? "0123456789ABCDEF" : "0123456789abcdef")[value & 0xF];
}

class TextWriter {
 public:
  explicit TextWriter(std::span<char> out) : out_(out) {}

  void put(char c) {
    if (used_ < out_.size()) {
      out_[used_++] = c;
    } else {
      overflowed_ = true;
    }
  }
  // Out of line (writer.cc): one copy of each in an image, whoever calls.
  void put(std::string_view text);
  void put_decimal(std::uint64_t value);
  void put_signed(std::int64_t value);
  // In hexadecimal, at least `min_digits` digits (leading zeros), no prefix.
  void put_hex(std::uint64_t value, unsigned min_digits = 1, bool upper = false);
  // `value` / 10^decimals, exactly: "0.000123456" for 123456 and 9.
  void put_fixed(std::uint64_t value, unsigned decimals);
  // Room left, for a renderer that writes whole entries or nothing.
  std::size_t room() const { return out_.size() - used_; }
  std::size_t size() const { return used_; }
  bool overflowed() const { return overflowed_; }
  std::string_view view() const { return std::string_view(out_.data(), used_); }

 private:
  std::span<char> out_;
  std::size_t used_ = 0;
  bool overflowed_ = false;
};

// A TextWriter with its own N bytes: a console line built whole, then
// printed once (console::print(line.view())).
template <std::size_t N>
class Line : public TextWriter {
 public:
  Line() : TextWriter(storage_) {}
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

 private:
  char storage_[N];
};

// Digits of value in decimal (1 to 20).
constexpr std::size_t decimal_digits(std::uint64_t value) {
  std::size_t n = 1;
  while (value >= 10) {
    value /= 10;
    ++n;
  }
  return n;
}

}  // namespace starling::text

#endif  // STARLING_KERNEL_TEXT_WRITER_H_
