#ifndef STARLING_NET_HTTP_SITE_H_
#define STARLING_NET_HTTP_SITE_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "kernel/async/task.h"
#include "net/http/request.h"
#include "net/http/response.h"

// A static site embedded in the image at build time (site.bzl's
// http_site: the files, their Content-Type by extension and a strong ETag
// from their sha256, generated into .rodata). serve_site() answers GET and
// HEAD from it with the file's bytes where they are (no copy), "/" and
// "dir/" as their index.html, 304 for a matching If-None-Match, 404 else.
//
//   constexpr Route kRoutes[] = {{.path = "/", .prefix = true,
//                                 .handler = http::serve_site,
//                                 .context = &my_site()}};
namespace starling::net::http {

struct SiteFile {
  std::string_view path;  // "/index.html"
  std::string_view content_type;
  std::string_view etag;  // quoted: "\"0123abcd...\""
  std::string_view data;  // the file's bytes, in .rodata
};

struct Site {
  std::span<const SiteFile> files;  // sorted by path
  const SiteFile* find(std::string_view path) const;
};

// If-None-Match (RFC 9110 §13.1.2): "*" or a list of entity tags, weak
// comparison; whether `etag` is among them.
bool etag_matches(std::string_view if_none_match, std::string_view etag);

// Route handler; the route's context is the const Site*.
async::Task<Response> serve_site(const Request& request);

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_SITE_H_
