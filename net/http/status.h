#ifndef STARLING_NET_HTTP_STATUS_H_
#define STARLING_NET_HTTP_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

// The status codes the server and its handlers answer with (RFC 9110 §15),
// and their reason phrases. Only these: a handler cannot make up a code the
// metrics (server_metrics.h) have no sample for.
namespace starling::net::http {

enum class Status : std::uint16_t {
  kContinue = 100,
  kOk = 200,
  kNoContent = 204,
  kMovedPermanently = 301,
  kNotModified = 304,
  kPermanentRedirect = 308,
  kBadRequest = 400,
  kUnauthorized = 401,
  kForbidden = 403,
  kNotFound = 404,
  kMethodNotAllowed = 405,
  kRequestTimeout = 408,
  kLengthRequired = 411,
  kContentTooLarge = 413,
  kUriTooLong = 414,
  kExpectationFailed = 417,
  kHeaderFieldsTooLarge = 431,
  kInternalServerError = 500,
  kNotImplemented = 501,
  kServiceUnavailable = 503,
  kVersionNotSupported = 505,
};

// Every Status, in order (server_metrics.h registers a sample for each).
inline constexpr Status kAllStatuses[] = {
    Status::kContinue,
    Status::kOk,
    Status::kNoContent,
    Status::kMovedPermanently,
    Status::kNotModified,
    Status::kPermanentRedirect,
    Status::kBadRequest,
    Status::kUnauthorized,
    Status::kForbidden,
    Status::kNotFound,
    Status::kMethodNotAllowed,
    Status::kRequestTimeout,
    Status::kLengthRequired,
    Status::kContentTooLarge,
    Status::kUriTooLong,
    Status::kExpectationFailed,
    Status::kHeaderFieldsTooLarge,
    Status::kInternalServerError,
    Status::kNotImplemented,
    Status::kServiceUnavailable,
    Status::kVersionNotSupported,
};
inline constexpr std::size_t kStatusCount = sizeof kAllStatuses / sizeof kAllStatuses[0];

constexpr std::uint16_t code(Status s) {
  return static_cast<std::uint16_t>(s);
}

// Index of `s` in kAllStatuses.
constexpr std::size_t status_index(Status s) {
  for (std::size_t i = 0; i < kStatusCount; ++i) {
    if (kAllStatuses[i] == s) return i;
  }
  return 0;
}

// RFC 9110's reason phrase.
constexpr std::string_view reason(Status s) {
  switch (s) {
    case Status::kContinue:
      return "Continue";
    case Status::kOk:
      return "OK";
    case Status::kNoContent:
      return "No Content";
    case Status::kMovedPermanently:
      return "Moved Permanently";
    case Status::kNotModified:
      return "Not Modified";
    case Status::kPermanentRedirect:
      return "Permanent Redirect";
    case Status::kBadRequest:
      return "Bad Request";
    case Status::kUnauthorized:
      return "Unauthorized";
    case Status::kForbidden:
      return "Forbidden";
    case Status::kNotFound:
      return "Not Found";
    case Status::kMethodNotAllowed:
      return "Method Not Allowed";
    case Status::kRequestTimeout:
      return "Request Timeout";
    case Status::kLengthRequired:
      return "Length Required";
    case Status::kContentTooLarge:
      return "Content Too Large";
    case Status::kUriTooLong:
      return "URI Too Long";
    case Status::kExpectationFailed:
      return "Expectation Failed";
    case Status::kHeaderFieldsTooLarge:
      return "Request Header Fields Too Large";
    case Status::kInternalServerError:
      return "Internal Server Error";
    case Status::kNotImplemented:
      return "Not Implemented";
    case Status::kServiceUnavailable:
      return "Service Unavailable";
    case Status::kVersionNotSupported:
      return "HTTP Version Not Supported";
  }
  return "Unknown";
}

// 1xx, 204 and 304 never carry a body (RFC 9110 §6.4.1).
constexpr bool has_no_body(Status s) {
  return code(s) < 200 || s == Status::kNoContent || s == Status::kNotModified;
}

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_STATUS_H_
