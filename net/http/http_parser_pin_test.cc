// The pinned http-parser (2.9.4, Debian's source package) as net/http will
// drive it: bytes in arbitrary pieces, requests pipelined on one
// connection, chunked bodies, and refusals of what a hostile client sends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http_parser.h"

namespace {

struct Seen {
  std::vector<std::string> urls;
  std::vector<std::string> bodies;
  std::vector<std::string> header_fields;
  int complete = 0;
  int methods[4] = {};
};

Seen& seen_of(http_parser* p) {
  return *static_cast<Seen*>(p->data);
}

http_parser_settings settings() {
  http_parser_settings s;
  http_parser_settings_init(&s);
  s.on_message_begin = [](http_parser* p) {
    seen_of(p).urls.emplace_back();
    seen_of(p).bodies.emplace_back();
    return 0;
  };
  s.on_url = [](http_parser* p, const char* at, size_t n) {
    seen_of(p).urls.back().append(at, n);
    return 0;
  };
  s.on_header_field = [](http_parser* p, const char* at, size_t n) {
    seen_of(p).header_fields.emplace_back(at, n);
    return 0;
  };
  s.on_body = [](http_parser* p, const char* at, size_t n) {
    seen_of(p).bodies.back().append(at, n);
    return 0;
  };
  s.on_message_complete = [](http_parser* p) {
    Seen& seen = seen_of(p);
    if (seen.complete < 4) seen.methods[seen.complete] = p->method;
    ++seen.complete;
    return 0;
  };
  return s;
}

// Feeds `text` in pieces of `piece` bytes; the bytes consumed in all.
size_t feed(http_parser* p, const std::string& text, size_t piece) {
  const http_parser_settings s = settings();
  size_t done = 0;
  while (done < text.size()) {
    const size_t n = std::min(piece, text.size() - done);
    const size_t used = http_parser_execute(p, &s, text.data() + done, n);
    done += used;
    if (used != n) break;
  }
  return done;
}

TEST(HttpParserPinTest, IsThePinnedVersion) {
  const unsigned long v = http_parser_version();
  EXPECT_EQ(v, (2ul << 16) | (9ul << 8) | 4ul);
}

TEST(HttpParserPinTest, PipelinedRequestsInAnyPiecesWithChunkedBody) {
  const std::string text =
      "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n"
      "POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
      "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
      "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n";
  for (size_t piece : {size_t{1}, size_t{7}, text.size()}) {
    Seen seen;
    http_parser p;
    http_parser_init(&p, HTTP_REQUEST);
    p.data = &seen;
    EXPECT_EQ(feed(&p, text, piece), text.size()) << http_errno_name(HTTP_PARSER_ERRNO(&p));
    ASSERT_EQ(seen.complete, 4) << piece;
    EXPECT_EQ(seen.urls, (std::vector<std::string>{"/index.html", "/form", "/up", "/"}));
    EXPECT_EQ(seen.bodies, (std::vector<std::string>{"", "hello", "abcde", ""}));
    EXPECT_EQ(seen.methods[0], HTTP_GET);
    EXPECT_EQ(seen.methods[1], HTTP_POST);
    EXPECT_EQ(seen.methods[3], HTTP_HEAD);
  }
}

TEST(HttpParserPinTest, RefusesMalformedRequests) {
  const struct {
    const char* text;
    http_errno want;
  } cases[] = {
      {"GET / HTTP/1.1\r\nBad Header\r\n\r\n", HPE_INVALID_HEADER_TOKEN},
      {"G@T / HTTP/1.1\r\n\r\n", HPE_INVALID_METHOD},
      {"GET / HTXP/1.1\r\n\r\n", HPE_STRICT},  // strict mode checks the "HTTP/" constant
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
       HPE_UNEXPECTED_CONTENT_LENGTH},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", HPE_INVALID_CHUNK_SIZE},
      {"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       HPE_INVALID_CONTENT_LENGTH},
  };
  for (const auto& c : cases) {
    Seen seen;
    http_parser p;
    http_parser_init(&p, HTTP_REQUEST);
    p.data = &seen;
    const std::string text = c.text;
    EXPECT_LT(feed(&p, text, text.size()), text.size()) << c.text;
    EXPECT_EQ(HTTP_PARSER_ERRNO(&p), c.want)
        << c.text << ": " << http_errno_name(HTTP_PARSER_ERRNO(&p));
    EXPECT_EQ(seen.complete, 0) << c.text;
  }
}

// Any version 0.0 to 999.999 parses: which versions to serve (1.0, 1.1;
// else 505) is net/http's decision, not the parser's.
TEST(HttpParserPinTest, LeavesTheVersionToTheServer) {
  Seen seen;
  http_parser p;
  http_parser_init(&p, HTTP_REQUEST);
  p.data = &seen;
  const std::string text = "GET / HTTP/9.9\r\n\r\n";
  EXPECT_EQ(feed(&p, text, text.size()), text.size());
  EXPECT_EQ(seen.complete, 1);
  EXPECT_EQ(p.http_major, 9);
  EXPECT_EQ(p.http_minor, 9);
}

TEST(HttpParserPinTest, HeadersPastTheLimitAreRefused) {
  // HTTP_MAX_HEADER_SIZE (80 KiB by default); net/http will hold its own
  // 8 KiB limit (431) below it: this is the parser's backstop.
  std::string text = "GET / HTTP/1.1\r\nX: ";
  text.append(HTTP_MAX_HEADER_SIZE + 1, 'a');
  text += "\r\n\r\n";
  Seen seen;
  http_parser p;
  http_parser_init(&p, HTTP_REQUEST);
  p.data = &seen;
  EXPECT_LT(feed(&p, text, 4096), text.size());
  EXPECT_EQ(HTTP_PARSER_ERRNO(&p), HPE_HEADER_OVERFLOW);
}

}  // namespace
