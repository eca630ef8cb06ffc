#include "net/http/response_head.h"

#include <cstdint>
#include <string_view>

#include "kernel/text/writer.h"
#include "kernel/wall_clock/calendar.h"
#include "kernel/wall_clock/wall_clock.h"

namespace starling::net::http {
namespace {

constexpr Method kAllowOrder[] = {Method::kGet, Method::kHead,   Method::kPost,
                                  Method::kPut, Method::kDelete, Method::kOptions};

// The head's writer: one bounds check a piece, then the bytes. With
// text::TextWriter (a store and a check a byte, its literals measured by
// strlen) a 124-byte head cost ~1,630 instructions of a keep-alive GET
// (render_head 1,207, strlen 420 in 10 calls); ~690 now. Copies are byte
// stores, not memcpy: the pieces are short and the destination unaligned,
// where a call to memcpy cost ~100 instructions each (9 a response) and
// clang calls it for a literal of more than a few bytes; for 33 and 46
// bytes, 177 each. A literal's loop is unrolled, so its bytes are stored
// as constants (~1.7 instructions a byte): clang left the loop rolled from
// about 32 bytes on, 5 instructions a byte, and HTTPS's two header lines
// cost ~500 instructions a response that way (//bench/http).
class HeadWriter {
 public:
  explicit HeadWriter(std::span<char> out) : out_(out) {}

  template <std::size_t N>
  [[clang::no_builtin("memcpy")]] void put(const char (&literal)[N]) {
    if (fits(N - 1)) {
      char* to = out_.data() + used_;
#pragma clang loop unroll(full)
      for (std::size_t i = 0; i + 1 < N; ++i) to[i] = literal[i];
      used_ += N - 1;
    }
  }
  [[clang::no_builtin("memcpy")]] void put(std::string_view text) {
    if (fits(text.size())) {
      char* to = out_.data() + used_;
      for (const char c : text) *to++ = c;
      used_ += text.size();
    }
  }
  void put_decimal(std::uint64_t value) {
    char digits[20];
    std::size_t n = sizeof digits;
    do {
      digits[--n] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    put(std::string_view(digits + n, sizeof digits - n));
  }
  // A status code: three digits (status.h has no other).
  void put_code(std::uint16_t code) {
    if (fits(3)) {
      out_[used_++] = static_cast<char>('0' + code / 100);
      out_[used_++] = static_cast<char>('0' + code / 10 % 10);
      out_[used_++] = static_cast<char>('0' + code % 10);
    }
  }
  std::size_t size() const { return used_; }
  bool overflowed() const { return overflowed_; }

 private:
  bool fits(std::size_t n) {
    if (n <= out_.size() - used_) return true;
    overflowed_ = true;
    return false;
  }

  std::span<char> out_;
  std::size_t used_ = 0;
  bool overflowed_ = false;
};

}  // namespace

Response status_response(Status status) {
  Response r;
  r.status = status;
  if (!has_no_body(status)) {
    r.content_type = "text/plain; charset=utf-8";
    r.set_body(reason(status));
  }
  return r;
}

namespace {

// The Date header's value now, or empty while the wall clock is unset:
// formatted once a second and kept (as nginx keeps its time strings), so
// most responses copy 29 bytes.
std::string_view http_date_now() {
  static constinit char cached[32] = {};
  static constinit std::int64_t cached_second = -1;
  static constinit std::size_t cached_size = 0;
  const auto now = wall_clock::now_unix_seconds();
  if (!now) return {};
  if (*now != cached_second) {
    text::TextWriter tw(cached);
    wall_clock::write_http_date(*now, tw);
    cached_size = tw.size();
    cached_second = *now;
  }
  return {cached, cached_size};
}

// HSTS's max-age in decimal, formatted when it changes (a server's is its
// configuration's): the division loop cost ~150 instructions a response.
std::string_view hsts_max_age_text(std::uint32_t max_age_s) {
  static constinit char cached[16] = {};
  static constinit std::uint32_t cached_value = 0;
  static constinit std::size_t cached_size = 0;
  if (max_age_s != cached_value || cached_size == 0) {
    HeadWriter w(cached);
    w.put_decimal(max_age_s);
    cached_size = w.size();
    cached_value = max_age_s;
  }
  return {cached, cached_size};
}

}  // namespace

[[clang::no_builtin("memcpy")]] std::size_t render_head(const Response& response,
                                                        const HeadOptions& options,
                                                        std::span<char> out) {
  HeadWriter w(out);
  w.put("HTTP/1.1 ");
  w.put_code(code(response.status));
  w.put(" ");
  w.put(reason(response.status));
  w.put("\r\nServer: starling\r\n");
  if (const std::string_view date = http_date_now(); !date.empty()) {
    w.put("Date: ");
    w.put(date);
    w.put("\r\n");
  }
  if (!response.content_type.empty()) {
    w.put("Content-Type: ");
    w.put(response.content_type);
    w.put("\r\n");
    if (options.nosniff) w.put("X-Content-Type-Options: nosniff\r\n");
  }
  if (!has_no_body(response.status)) {
    w.put("Content-Length: ");
    w.put_decimal(response.body.size());
    w.put("\r\n");
  }
  for (std::size_t i = 0; i < response.header_count; ++i) {
    w.put(response.headers[i].name);
    w.put(": ");
    w.put(response.headers[i].value);
    w.put("\r\n");
  }
  if (response.allow != 0) {
    w.put("Allow: ");
    bool first = true;
    for (Method m : kAllowOrder) {
      if ((response.allow & method_bit(m)) == 0) continue;
      if (!first) w.put(", ");
      w.put(method_name(m));
      first = false;
    }
    w.put("\r\n");
  }
  if (options.hsts_max_age_s != 0) {
    w.put("Strict-Transport-Security: max-age=");
    w.put(hsts_max_age_text(options.hsts_max_age_s));
    w.put("\r\n");
  }
  if (!options.keep_alive) {
    w.put("Connection: close\r\n");
  } else if (options.http10_keep_alive) {
    w.put("Connection: keep-alive\r\n");
  }
  w.put("\r\n");
  return w.overflowed() ? 0 : w.size();
}

}  // namespace starling::net::http
