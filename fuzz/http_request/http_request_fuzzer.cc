// Fuzzes net/http's request parsing (request_parser.h, the glue over the
// pinned http-parser) the way the server drives it: the first bytes pick
// the read size, the head buffer's size and the body limit; the rest is
// what a client sent, fed in reads of that size, every request completed
// and the next one parsed from the same buffer (pipelining). Besides "no
// crash, no UB", checks what the parser promises the server: every view of
// a request lies inside the slot's buffers, a body never exceeds its
// limit, a refusal is one of the statuses request_parser.h lists, and a
// verdict, once given, stays.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "net/http/request_parser.h"

namespace {

using starling::net::http::Request;
using starling::net::http::RequestParser;
using starling::net::http::Status;
using State = RequestParser::State;

void check(bool condition) {
  if (!condition) std::abort();
}

bool inside(std::string_view v, const std::vector<char>& buffer) {
  if (v.empty()) return true;
  return v.data() >= buffer.data() && v.data() + v.size() <= buffer.data() + buffer.size();
}

bool refusal(Status s) {
  switch (s) {
    case Status::kBadRequest:
    case Status::kUriTooLong:
    case Status::kHeaderFieldsTooLarge:
    case Status::kContentTooLarge:
    case Status::kVersionNotSupported:
      return true;
    default:
      return false;
  }
}

void check_request(const Request& r, const std::vector<char>& buffer,
                   const std::vector<std::byte>& body, std::size_t limit) {
  check(inside(r.target, buffer) && inside(r.query, buffer));
  check(inside(r.path, buffer) || r.path.data() == starling::net::http::kRootPath.data());
  check(r.header_count <= starling::net::http::kMaxHeaders);
  for (const auto& h : r.all_headers()) check(inside(h.name, buffer) && inside(h.value, buffer));
  check(r.body.size() <= limit);
  if (!r.body.empty()) {
    check(r.body.data() >= body.data() &&
          r.body.data() + r.body.size() <= body.data() + body.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  std::vector<char> buffer(256 + (data[1] % 32) * 256);  // 256 B to 8 KiB
  std::vector<std::byte> body(4096);
  const std::size_t limit = (data[2] % 17) * 256;  // 0 to 4 KiB
  RequestParser parser(buffer, body);
  std::size_t offset = 3;
  for (int steps = 0; steps < 100000; ++steps) {
    const State s = parser.advance();
    if (s == State::kNeedMore) {
      auto room = parser.room();
      check(!room.empty());
      if (offset == size) return 0;
      const std::size_t n = std::min({piece, room.size(), size - offset});
      std::memcpy(room.data(), data + offset, n);
      parser.commit(n);
      offset += n;
    } else if (s == State::kHead) {
      const Request& r = parser.request();
      check(inside(r.target, buffer));
      check(r.version_minor <= 9);
      parser.set_body_limit(limit);
      if (parser.declared_length() > limit) check(parser.advance() == State::kError);
    } else if (s == State::kComplete) {
      check_request(parser.request(), buffer, body, limit);
      check(parser.advance() == State::kComplete);  // a verdict stays until next_request()
      parser.next_request();
    } else {
      check(refusal(parser.error_status()));
      check(parser.advance() == State::kError);
      return 0;
    }
  }
  check(false);  // the parser made no progress
  return 0;
}
