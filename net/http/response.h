#ifndef STARLING_NET_HTTP_RESPONSE_H_
#define STARLING_NET_HTTP_RESPONSE_H_

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "net/http/body_buffer.h"
#include "net/http/request.h"
#include "net/http/status.h"

// What a handler answers. The body is a view, written from where it is (a
// site's file in .rodata is never staged): it must outlive the write, so it
// is static data or lives in the response's own BodyBuffer lease. Header
// values are views with the same rule. The server adds Server,
// Content-Length and Connection itself (response_head.h).
namespace starling::net::http {

inline constexpr std::size_t kMaxResponseHeaders = 6;

struct Response {
  Status status = Status::kOk;
  std::string_view content_type{};  // empty: no Content-Type
  std::span<const std::byte> body{};
  std::array<Header, kMaxResponseHeaders> headers{};  // ETag, Cache-Control, Retry-After...
  std::size_t header_count = 0;
  MethodSet allow = 0;  // non-zero: an Allow header listing these (405, OPTIONS)
  bool close = false;   // Connection: close after this response
  BodyBuffer buffer{};  // the body's storage when it was rendered

  // Adds a header; false (and nothing added) when kMaxResponseHeaders are set.
  bool add_header(std::string_view name, std::string_view value) {
    if (header_count == headers.size()) return false;
    headers[header_count++] = {.name = name, .value = value};
    return true;
  }
  void set_body(std::string_view text) {
    body = std::as_bytes(std::span(text.data(), text.size()));
  }
};

// A body-less answer with its reason phrase as a text/plain body.
Response status_response(Status status);

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_RESPONSE_H_
