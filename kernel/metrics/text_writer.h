#ifndef STARLING_KERNEL_METRICS_TEXT_WRITER_H_
#define STARLING_KERNEL_METRICS_TEXT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

// Text into a caller's buffer, never past its end: what does not fit is
// dropped and overflowed() says so. The renderers' one output type.
namespace starling::metrics {

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
  void put(std::string_view text) {
    for (char c : text) put(c);
  }
  void put_decimal(std::uint64_t value) {
    char digits[20];
    std::size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (n != 0) put(digits[--n]);
  }
  // `value` / 10^decimals, exactly: "0.000123456" for 123456 and 9.
  void put_fixed(std::uint64_t value, unsigned decimals) {
    std::uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; ++i) scale *= 10;
    put_decimal(value / scale);
    if (decimals == 0) return;
    put('.');
    std::uint64_t fraction = value % scale;
    for (unsigned i = decimals; i-- > 0;) {
      std::uint64_t digit = fraction;
      for (unsigned j = 0; j < i; ++j) digit /= 10;
      put(static_cast<char>('0' + digit % 10));
    }
  }
  // Room left, for a renderer that writes whole entries or nothing.
  std::size_t room() const { return out_.size() - used_; }
  std::size_t size() const { return used_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::span<char> out_;
  std::size_t used_ = 0;
  bool overflowed_ = false;
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

}  // namespace starling::metrics

#endif  // STARLING_KERNEL_METRICS_TEXT_WRITER_H_
