#ifndef STARLING_NET_HTTP_REQUEST_H_
#define STARLING_NET_HTTP_REQUEST_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

// One parsed HTTP/1.1 request as a handler sees it. Every view points into
// the connection's slot (its header buffer and body buffer): valid until the
// handler's Response has been written, never copied.
namespace starling::net::http {

enum class Method : std::uint8_t { kGet, kHead, kPost, kPut, kDelete, kOptions, kOther };

// Route method sets (router.h): bit (1 << Method).
using MethodSet = std::uint8_t;
constexpr MethodSet method_bit(Method m) {
  return static_cast<MethodSet>(1u << static_cast<unsigned>(m));
}
inline constexpr MethodSet kGetOrHead = method_bit(Method::kGet) | method_bit(Method::kHead);

constexpr std::string_view method_name(Method m) {
  switch (m) {
    case Method::kGet:
      return "GET";
    case Method::kHead:
      return "HEAD";
    case Method::kPost:
      return "POST";
    case Method::kPut:
      return "PUT";
    case Method::kDelete:
      return "DELETE";
    case Method::kOptions:
      return "OPTIONS";
    case Method::kOther:
      break;
  }
  return "OTHER";
}

struct Header {
  std::string_view name;   // as sent (compare with equals_ignoring_case)
  std::string_view value;  // leading and trailing spaces and tabs removed
};

// A request's header lines beyond this are refused with 431.
inline constexpr std::size_t kMaxHeaders = 48;

// The path of an absolute-form target with none ("http://host?x"): the one
// view of a request that does not point into the slot's buffers.
// (An array object: one address in every translation unit, which a string
// literal's need not have.)
inline constexpr char kRootPathText[] = "/";
inline constexpr std::string_view kRootPath{kRootPathText, 1};

// ASCII case-insensitive equality (header names, tokens).
bool equals_ignoring_case(std::string_view a, std::string_view b);

struct Request {
  Method method = Method::kOther;
  std::string_view method_text;    // the token as sent, e.g. "PATCH" for kOther
  std::string_view target;         // the request-target as sent: "/a/b?x=1"
  std::string_view path;           // target up to '?' (kRootPath: absolute form with none)
  std::string_view query;          // after '?', without it; empty if none
  std::uint8_t version_minor = 1;  // HTTP/1.x (the server answers 505 otherwise)
  std::array<Header, kMaxHeaders> headers{};
  std::size_t header_count = 0;
  std::span<const std::byte> body;  // Content-Length or de-chunked bytes
  bool keep_alive = true;           // after this request (Connection, version)
  // The route's context (router.h), for handlers shared between routes.
  const void* context = nullptr;

  // Back to a default Request for the connection's next one, without
  // touching `headers` (header_count bounds what is read of it): assigning
  // Request{} zeroed and copied its 1.6 KiB, ~1,700 instructions of every
  // keep-alive GET (memset 790, memcpy 654, the rest inline). Every other
  // member is reset here: keep it in step with the fields above.
  void clear() {
    method = Method::kOther;
    method_text = {};
    target = {};
    path = {};
    query = {};
    version_minor = 1;
    header_count = 0;
    body = {};
    keep_alive = true;
    context = nullptr;
  }

  // The first header named `name` (case-insensitive); empty if absent.
  std::string_view header(std::string_view name) const;
  std::span<const Header> all_headers() const { return {headers.data(), header_count}; }
};

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_REQUEST_H_
