#ifndef STARLING_NET_HTTP_RESPONSE_HEAD_H_
#define STARLING_NET_HTTP_RESPONSE_HEAD_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "net/http/response.h"

// The status line and header block of a response, rendered into the
// connection's head buffer (the body is written from where it is):
//
//   HTTP/1.1 200 OK\r\n
//   Server: starling\r\n
//   Date: <IMF-fixdate>\r\n          (once the wall clock is set)
//   Content-Type: text/html\r\n        (if set)
//   X-Content-Type-Options: nosniff\r\n  (with it, over HTTPS)
//   Content-Length: 1234\r\n           (not for 1xx, 204 and 304)
//   <the response's headers>\r\n
//   Allow: GET, HEAD\r\n               (if allow is set)
//   Strict-Transport-Security: max-age=N\r\n  (over HTTPS)
//   Connection: close\r\n              (when the connection ends after it;
//                                       keep-alive for HTTP/1.0 clients that asked)
//   \r\n
//
// Date: Sun, 06 Dec 2026 12:41:34 GMT, after Server, once the wall clock is
// set (SNTP: net/sntp); until then none, as RFC 9110 §6.6.1 asks of an
// origin without a clock.
namespace starling::net::http {

struct HeadOptions {
  bool keep_alive = true;          // the connection stays open after it
  bool http10_keep_alive = false;  // an HTTP/1.0 client asked for keep-alive: say so
  // Over HTTPS: Strict-Transport-Security: max-age=N (RFC 6797); 0 = none.
  std::uint32_t hsts_max_age_s = 0;
  // Over HTTPS: X-Content-Type-Options: nosniff with a Content-Type. The
  // type is the server's word (by extension, or the handler's): browsers
  // must not guess another (MIME sniffing turns a text file into script).
  // testssl.sh counts a site with no such header a MEDIUM finding.
  bool nosniff = false;
};

// The head's size, or 0 if it does not fit `out` (the server answers 500).
std::size_t render_head(const Response& response, const HeadOptions& options, std::span<char> out);

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_RESPONSE_HEAD_H_
