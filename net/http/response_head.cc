#include "net/http/response_head.h"

#include <cstdint>
#include <string_view>

#include "kernel/metrics/text_writer.h"

namespace starling::net::http {
namespace {

constexpr Method kAllowOrder[] = {Method::kGet, Method::kHead,   Method::kPost,
                                  Method::kPut, Method::kDelete, Method::kOptions};

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

std::size_t render_head(const Response& response, const HeadOptions& options, std::span<char> out) {
  metrics::TextWriter w(out);
  w.put("HTTP/1.1 ");
  w.put_decimal(code(response.status));
  w.put(" ");
  w.put(reason(response.status));
  w.put("\r\nServer: starling\r\n");
  if (!response.content_type.empty()) {
    w.put("Content-Type: ");
    w.put(response.content_type);
    w.put("\r\n");
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
  if (!options.keep_alive) {
    w.put("Connection: close\r\n");
  } else if (options.http10_keep_alive) {
    w.put("Connection: keep-alive\r\n");
  }
  w.put("\r\n");
  return w.overflowed() ? 0 : w.size();
}

}  // namespace starling::net::http
