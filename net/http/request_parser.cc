#include "net/http/request_parser.h"

#include <climits>
#include <cstring>
#include <initializer_list>

namespace starling::net::http {
namespace {

RequestParser& self(http_parser* p) {
  return *static_cast<RequestParser*>(p->data);
}

Method method_of(unsigned m) {
  switch (m) {
    case HTTP_GET:
      return Method::kGet;
    case HTTP_HEAD:
      return Method::kHead;
    case HTTP_POST:
      return Method::kPost;
    case HTTP_PUT:
      return Method::kPut;
    case HTTP_DELETE:
      return Method::kDelete;
    case HTTP_OPTIONS:
      return Method::kOptions;
    default:
      return Method::kOther;
  }
}

// Names as constants: a literal passed as a string_view is measured by a
// call to strlen at run time here (-ffreestanding).
constexpr std::string_view kHost = "host";
constexpr std::string_view kExpect = "expect";
constexpr std::string_view kSchemes[] = {"http://", "https://"};

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view v) {
  while (!v.empty() && is_blank(v.front())) v.remove_prefix(1);
  while (!v.empty() && is_blank(v.back())) v.remove_suffix(1);
  return v;
}

}  // namespace

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view Request::header(std::string_view name) const {
  for (const Header& h : all_headers()) {
    if (equals_ignoring_case(h.name, name)) return h.value;
  }
  return {};
}

// The callbacks only record where things are (offsets into the buffer,
// which does not move while a head is parsed) and pause the parser at the
// two points the server acts on: the end of the head, the end of the request.
const http_parser_settings RequestParser::kSettings = [] {
  http_parser_settings s;
  http_parser_settings_init(&s);
  s.on_url = &RequestParser::on_url;
  s.on_header_field = &RequestParser::on_header_field;
  s.on_header_value = &RequestParser::on_header_value;
  s.on_headers_complete = &RequestParser::on_headers_complete;
  s.on_body = &RequestParser::on_body;
  s.on_message_complete = &RequestParser::on_message_complete;
  return s;
}();

RequestParser::RequestParser(std::span<char> buffer, std::span<std::byte> body) noexcept
    : buffer_(buffer), body_(body) {
  reset();
}

void RequestParser::reset() noexcept {
  http_parser_init(&parser_, HTTP_REQUEST);
  parser_.data = this;
  head_end_ = 0;
  body_size_ = 0;
  body_limit_ = 0;
  declared_length_ = 0;
  url_ = {};
  fields_seen_ = 0;
  last_ = Piece::kNone;
  phase_ = Phase::kHead;
  error_ = Status::kBadRequest;
  expects_continue_ = false;
  unknown_expectation_ = false;
  chunked_ = false;
  request_.clear();
}

std::span<std::byte> RequestParser::room() noexcept {
  return std::as_writable_bytes(buffer_.subspan(filled_));
}

void RequestParser::commit(std::size_t n) noexcept {
  filled_ += n <= buffer_.size() - filled_ ? n : buffer_.size() - filled_;
}

void RequestParser::extend(Piece piece, Span& span, const char* at, std::size_t n) noexcept {
  const auto begin = static_cast<std::uint32_t>(at - buffer_.data());
  if (last_ == piece) {
    // The same token continued in the next read: it is contiguous in the
    // buffer (every read lands right after the bytes before it).
    span.size = static_cast<std::uint32_t>(begin + n - span.begin);
  } else {
    span = {.begin = begin, .size = static_cast<std::uint32_t>(n)};
  }
  last_ = piece;
}

int RequestParser::on_url(http_parser* p, const char* at, std::size_t n) {
  RequestParser& r = self(p);
  r.extend(Piece::kUrl, r.url_, at, n);
  return 0;
}

int RequestParser::on_header_field(http_parser* p, const char* at, std::size_t n) {
  RequestParser& r = self(p);
  if (r.last_ != Piece::kField) {
    if (r.fields_seen_ == kMaxHeaders) {
      r.error_ = Status::kHeaderFieldsTooLarge;
      r.phase_ = Phase::kError;
      return 1;
    }
    ++r.fields_seen_;
    r.values_[r.fields_seen_ - 1] = {};
  }
  r.extend(Piece::kField, r.fields_[r.fields_seen_ - 1], at, n);
  return 0;
}

int RequestParser::on_header_value(http_parser* p, const char* at, std::size_t n) {
  RequestParser& r = self(p);
  r.extend(Piece::kValue, r.values_[r.fields_seen_ - 1], at, n);
  return 0;
}

int RequestParser::on_headers_complete(http_parser* p) {
  RequestParser& r = self(p);
  r.phase_ = Phase::kHeadDone;
  http_parser_pause(p, 1);
  return 0;
}

int RequestParser::on_body(http_parser* p, const char* at, std::size_t n) {
  RequestParser& r = self(p);
  if (n > r.body_limit_ - r.body_size_) {
    r.error_ = Status::kContentTooLarge;
    r.phase_ = Phase::kError;
    return 1;
  }
  std::memcpy(r.body_.data() + r.body_size_, at, n);
  r.body_size_ += n;
  return 0;
}

int RequestParser::on_message_complete(http_parser* p) {
  RequestParser& r = self(p);
  r.request_.body = r.body_.first(r.body_size_);
  r.phase_ = Phase::kDone;
  http_parser_pause(p, 1);
  return 0;
}

RequestParser::State RequestParser::fail(Status status) noexcept {
  error_ = status;
  phase_ = Phase::kError;
  return State::kError;
}

// The head is whole: its views, and what the server must check before
// anything else (version, Host, Expect).
RequestParser::State RequestParser::finish_head() noexcept {
  head_end_ = parsed_;
  Request& q = request_;
  const char* base = buffer_.data();
  q.method = method_of(parser_.method);
  q.method_text = http_method_str(static_cast<http_method>(parser_.method));
  q.target = std::string_view(base + url_.begin, url_.size);
  std::string_view path = q.target;
  // Absolute form (RFC 9112 §3.2.2): the path starts after the authority,
  // which ends at the first '/', '?' or '#' (RFC 3986 §3.2); an empty path
  // is "/" (RFC 9112 §3.2.1). Found by the fuzzer: "http://h?x=1" lost its
  // query, and its "/" was a literal outside the slot's buffer.
  bool absolute = false;
  for (std::string_view scheme : kSchemes) {
    if (path.size() >= scheme.size() &&
        equals_ignoring_case(path.substr(0, scheme.size()), scheme)) {
      path.remove_prefix(scheme.size());
      const std::size_t end = path.find_first_of("/?#");
      path = end == std::string_view::npos ? std::string_view() : path.substr(end);
      absolute = true;
      break;
    }
  }
  if (const std::size_t mark = path.find('?'); mark != std::string_view::npos) {
    q.query = path.substr(mark + 1);
    path = path.substr(0, mark);
  }
  q.path = absolute && path.empty() ? kRootPath : path;
  q.header_count = fields_seen_;
  bool control_byte = false;
  // Host and the first Expect are found in the same pass (a pass each, and
  // Request::header's, before).
  std::size_t hosts = 0;
  std::string_view expect;
  bool expect_seen = false;
  for (std::size_t i = 0; i < fields_seen_; ++i) {
    Header& h = q.headers[i];
    h = {.name = std::string_view(base + fields_[i].begin, fields_[i].size),
         .value = trimmed(std::string_view(base + values_[i].begin, values_[i].size))};
    // http-parser checks every byte of a value but its first: RFC 9110
    // §5.5 allows no control byte but HTAB in any of them.
    for (char c : h.value) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) control_byte = true;
    }
    if (equals_ignoring_case(h.name, kHost)) {
      ++hosts;
    } else if (!expect_seen && equals_ignoring_case(h.name, kExpect)) {
      expect = h.value;
      expect_seen = true;
    }
  }
  q.keep_alive = http_should_keep_alive(&parser_) != 0;
  chunked_ = (parser_.flags & F_CHUNKED) != 0;
  declared_length_ = chunked_ || parser_.content_length == ULLONG_MAX ? 0 : parser_.content_length;
  if (parser_.http_major != 1) return fail(Status::kVersionNotSupported);
  if (control_byte) return fail(Status::kBadRequest);
  q.version_minor = static_cast<std::uint8_t>(parser_.http_minor);
  if (parser_.http_minor >= 1 ? hosts != 1 : hosts > 1) return fail(Status::kBadRequest);
  if (!expect.empty()) {
    if (equals_ignoring_case(expect, "100-continue")) {
      expects_continue_ = parser_.http_minor >= 1 && (chunked_ || declared_length_ > 0);
    } else {
      unknown_expectation_ = true;
    }
  }
  return State::kHead;
}

void RequestParser::set_body_limit(std::size_t limit) noexcept {
  if (phase_ != Phase::kHeadDone) return;
  body_limit_ = limit < body_.size() ? limit : body_.size();
  if (declared_length_ > body_limit_) {
    (void)fail(Status::kContentTooLarge);
    return;
  }
  phase_ = Phase::kBody;
  http_parser_pause(&parser_, 0);
}

RequestParser::State RequestParser::advance() noexcept {
  switch (phase_) {
    case Phase::kError:
      return State::kError;
    case Phase::kDone:
      return State::kComplete;
    case Phase::kHeadDone:
      return State::kHead;
    case Phase::kHead:
    case Phase::kBody:
      break;
  }
  while (parsed_ < filled_) {
    const std::size_t n =
        http_parser_execute(&parser_, &kSettings, buffer_.data() + parsed_, filled_ - parsed_);
    parsed_ += n;
    if (phase_ == Phase::kError) return State::kError;  // a callback refused
    const auto err = HTTP_PARSER_ERRNO(&parser_);
    if (err == HPE_PAUSED) {
      if (phase_ == Phase::kHeadDone) return finish_head();
      if (phase_ == Phase::kDone) return State::kComplete;
    }
    if (err == HPE_HEADER_OVERFLOW) return fail(Status::kHeaderFieldsTooLarge);
    if (err != HPE_OK) return fail(Status::kBadRequest);
  }
  if (phase_ == Phase::kBody) {
    // Body bytes are copied out as they are parsed: reuse their room.
    filled_ = parsed_ = head_end_;
  } else if (filled_ == buffer_.size()) {
    // The head does not fit (a head is whole before any of it is used).
    return fail(url_.size == 0 || last_ == Piece::kUrl ? Status::kUriTooLong
                                                       : Status::kHeaderFieldsTooLarge);
  }
  return State::kNeedMore;
}

void RequestParser::next_request() noexcept {
  const std::size_t rest = filled_ - parsed_;
  if (rest > 0) std::memmove(buffer_.data(), buffer_.data() + parsed_, rest);
  filled_ = rest;
  parsed_ = 0;
  reset();
}

}  // namespace starling::net::http
