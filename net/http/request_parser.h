#ifndef STARLING_NET_HTTP_REQUEST_PARSER_H_
#define STARLING_NET_HTTP_REQUEST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "http_parser.h"
#include "net/http/request.h"
#include "net/http/status.h"

// The glue between a connection's bytes and the pinned http-parser
// (Debian's 2.9.4): the bytes are read straight into the slot's buffer and
// parsed there, and the request's views point into it, so a request is
// never copied. A body is gathered into the slot's body buffer (de-chunked).
//
//   parser.advance() -> kNeedMore: read into room(), commit(n), again
//                    -> kHead:     the head is whole: route it, then
//                                  set_body_limit(n) (413 if it is over)
//                    -> kComplete: request() is whole; answer it, then
//                                  next_request() (pipelined bytes kept)
//                    -> kError:    error_status() says what to answer
//                                  (then close: the stream is not in step)
//
// What it refuses, and with what (a hostile client's usual tries):
//   a head that does not fit the buffer: 431 (414 while still in the target)
//   more than kMaxHeaders header lines: 431
//   a body over the route's limit (declared, or while de-chunking): 413
//   HTTP/x.y with x != 1 (the parser accepts any digits): 505
//   HTTP/1.1 without exactly one Host header: 400 (RFC 9112 §3.2)
//   a control byte (but HTAB) in a header value: 400 (http-parser lets the
//   first byte of a value through unchecked)
//   anything else the parser rejects (bad tokens, bad chunk sizes, both
//   Content-Length and chunked, a Transfer-Encoding other than chunked): 400
namespace starling::net::http {

class RequestParser {
 public:
  enum class State : std::uint8_t { kNeedMore, kHead, kComplete, kError };

  // `buffer` holds the request head (and what follows it on the wire);
  // `body` receives the body. Both belong to the connection's slot.
  RequestParser(std::span<char> buffer, std::span<std::byte> body) noexcept;
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Room for the next read (empty only when advance() has a verdict).
  std::span<std::byte> room() noexcept;
  // `n` bytes were read into room().
  void commit(std::size_t n) noexcept;

  State advance() noexcept;

  // After kHead: the most body bytes this request may have (<= the body
  // buffer). Over it: advance() gives kError with 413.
  void set_body_limit(std::size_t limit) noexcept;
  // After kHead: whether the client waits for "100 Continue" before its
  // body (Expect: 100-continue, and a body is coming).
  bool expects_continue() const noexcept { return expects_continue_; }
  // After kHead: an Expect other than 100-continue (answer 417).
  bool unknown_expectation() const noexcept { return unknown_expectation_; }
  // After kHead: the body's declared length (0 if none, and while chunked).
  std::uint64_t declared_length() const noexcept { return declared_length_; }
  bool chunked() const noexcept { return chunked_; }

  const Request& request() const noexcept { return request_; }
  Request& request() noexcept { return request_; }
  Status error_status() const noexcept { return error_; }

  // After the answer to request(): forget it, keep the bytes after it.
  void next_request() noexcept;
  // Bytes of the next request(s) already buffered.
  std::size_t pending_bytes() const noexcept { return filled_ - parsed_; }
  // Whether any byte of the current request has arrived.
  bool started() const noexcept { return filled_ > 0; }

 private:
  enum class Piece : std::uint8_t { kNone, kUrl, kField, kValue };
  struct Span {
    std::uint32_t begin = 0;
    std::uint32_t size = 0;
  };

  static int on_url(http_parser* p, const char* at, std::size_t n);
  static int on_header_field(http_parser* p, const char* at, std::size_t n);
  static int on_header_value(http_parser* p, const char* at, std::size_t n);
  static int on_headers_complete(http_parser* p);
  static int on_body(http_parser* p, const char* at, std::size_t n);
  static int on_message_complete(http_parser* p);
  static const http_parser_settings kSettings;

  void extend(Piece piece, Span& span, const char* at, std::size_t n) noexcept;
  State fail(Status status) noexcept;
  State finish_head() noexcept;
  void reset() noexcept;

  std::span<char> buffer_;
  std::span<std::byte> body_;
  http_parser parser_{};
  std::size_t filled_ = 0;    // bytes in buffer_
  std::size_t parsed_ = 0;    // of those, handed to the parser
  std::size_t head_end_ = 0;  // after kHead: body bytes parsed are dropped back to here
  std::size_t body_size_ = 0;
  std::size_t body_limit_ = 0;
  std::uint64_t declared_length_ = 0;
  Span url_;
  Span fields_[kMaxHeaders];
  Span values_[kMaxHeaders];
  std::size_t fields_seen_ = 0;
  Piece last_ = Piece::kNone;
  enum class Phase : std::uint8_t { kHead, kHeadDone, kBody, kDone, kError } phase_ = Phase::kHead;
  Status error_ = Status::kBadRequest;
  bool expects_continue_ = false;
  bool unknown_expectation_ = false;
  bool chunked_ = false;
  Request request_;
};

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_REQUEST_PARSER_H_
