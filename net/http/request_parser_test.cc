// request_parser.h over the pinned http-parser: requests fed in pieces of
// every size, pipelined, with bodies, and what a hostile client sends.
#include "net/http/request_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace starling::net::http {
namespace {

using State = RequestParser::State;

struct Fed {
  std::vector<std::string> targets;
  std::vector<std::string> bodies;
  std::vector<Method> methods;
  std::vector<bool> keep_alive;
  std::vector<std::string> hosts;
  State last = State::kNeedMore;
  Status error = Status::kOk;
  int continues = 0;
};

// Feeds `wire` in pieces of `piece` bytes, answering every request the
// way the server does (body limit, next_request), until the bytes run out
// or the parser gives a verdict.
Fed feed(const std::string& wire, std::size_t piece, std::size_t body_limit = 1024,
         std::size_t buffer_bytes = 8192) {
  std::vector<char> buffer(buffer_bytes);
  std::vector<std::byte> body(4096);
  RequestParser parser(buffer, body);
  Fed fed;
  std::size_t offset = 0;
  for (;;) {
    const State s = parser.advance();
    fed.last = s;
    if (s == State::kNeedMore) {
      if (offset == wire.size()) return fed;
      auto room = parser.room();
      const std::size_t n = std::min({piece, room.size(), wire.size() - offset});
      std::memcpy(room.data(), wire.data() + offset, n);
      parser.commit(n);
      offset += n;
    } else if (s == State::kHead) {
      if (parser.expects_continue()) ++fed.continues;
      parser.set_body_limit(body_limit);
    } else if (s == State::kComplete) {
      const Request& r = parser.request();
      fed.targets.emplace_back(r.target);
      fed.methods.push_back(r.method);
      fed.keep_alive.push_back(r.keep_alive);
      fed.hosts.emplace_back(r.header("HOST"));
      fed.bodies.emplace_back(reinterpret_cast<const char*>(r.body.data()), r.body.size());
      parser.next_request();
    } else {
      fed.error = parser.error_status();
      return fed;
    }
  }
}

const std::string kPipeline =
    "GET /index.html?x=1 HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\n\r\n"
    "POST /submit HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\n\r\nhello"
    "POST /chunks HTTP/1.1\r\nHost: c\r\nTransfer-Encoding: chunked\r\n\r\n"
    "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: x\r\n\r\n"
    "HEAD / HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n";

TEST(RequestParser, PipelinedRequestsInPiecesOfEverySize) {
  for (std::size_t piece : {1, 2, 3, 7, 64, 4096}) {
    SCOPED_TRACE(piece);
    const Fed fed = feed(kPipeline, piece);
    EXPECT_EQ(fed.last, State::kNeedMore);
    ASSERT_EQ(fed.targets.size(), 4u);
    EXPECT_EQ(fed.targets[0], "/index.html?x=1");
    EXPECT_EQ(fed.methods,
              (std::vector<Method>{Method::kGet, Method::kPost, Method::kPost, Method::kHead}));
    EXPECT_EQ(fed.bodies, (std::vector<std::string>{"", "hello", "abcdefg", ""}));
    EXPECT_EQ(fed.hosts, (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_EQ(fed.keep_alive, (std::vector<bool>{true, true, true, false}));
  }
}

TEST(RequestParser, PathQueryHeadersAndAbsoluteForm) {
  std::vector<char> buffer(8192);
  std::vector<std::byte> body(64);
  RequestParser parser(buffer, body);
  const std::string wire =
      "GET http://example.org/a/b?q=2 HTTP/1.0\r\nHost: example.org\r\nX-Pad:  \t v  \t\r\n"
      "Connection: keep-alive\r\n\r\n";
  std::memcpy(parser.room().data(), wire.data(), wire.size());
  parser.commit(wire.size());
  ASSERT_EQ(parser.advance(), State::kHead);
  parser.set_body_limit(0);
  ASSERT_EQ(parser.advance(), State::kComplete);
  const Request& r = parser.request();
  EXPECT_EQ(r.path, "/a/b");
  EXPECT_EQ(r.query, "q=2");
  EXPECT_EQ(r.version_minor, 0);
  EXPECT_TRUE(r.keep_alive);  // HTTP/1.0 that asked for it
  EXPECT_EQ(r.header("x-pad"), "v");
  EXPECT_EQ(r.header("absent"), "");
  EXPECT_EQ(r.header_count, 3u);
}

// Absolute form without a path (found by //fuzz/http_request): the path is
// "/", the query is kept, and the path is the one view allowed outside the
// buffer (kRootPath).
TEST(RequestParser, AbsoluteFormWithoutAPathKeepsItsQuery) {
  for (const std::string target : {"http://hex.html?x=1", "HTTP://h?x=1"}) {
    SCOPED_TRACE(target);
    std::vector<char> buffer(1024);
    std::vector<std::byte> body(16);
    RequestParser parser(buffer, body);
    const std::string wire = "GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n";
    std::memcpy(parser.room().data(), wire.data(), wire.size());
    parser.commit(wire.size());
    ASSERT_EQ(parser.advance(), State::kHead);
    const Request& r = parser.request();
    EXPECT_EQ(r.path, "/");
    EXPECT_EQ(r.path.data(), kRootPath.data());
    EXPECT_EQ(r.query, "x=1");
  }
}

TEST(RequestParser, ExpectContinueOnlyWhenABodyIsComing) {
  EXPECT_EQ(
      feed("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok", 5)
          .continues,
      1);
  EXPECT_EQ(feed("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n", 5).continues, 0);
}

struct Refusal {
  const char* what;
  std::string wire;
  Status status;
};

TEST(RequestParser, RefusesWhatAHostileClientSends) {
  const std::string big_header = "X-Big: " + std::string(9000, 'a') + "\r\n";
  std::string many;
  for (int i = 0; i < 49; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  const Refusal cases[] = {
      {"bad method token", "G@T / HTTP/1.1\r\nHost: a\r\n\r\n", Status::kBadRequest},
      {"no Host in 1.1", "GET / HTTP/1.1\r\n\r\n", Status::kBadRequest},
      {"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", Status::kBadRequest},
      {"HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", Status::kVersionNotSupported},
      {"HTTP/9.9", "GET / HTTP/9.9\r\nHost: a\r\n\r\n", Status::kVersionNotSupported},
      {"header over the buffer", "GET / HTTP/1.1\r\nHost: a\r\n" + big_header + "\r\n",
       Status::kHeaderFieldsTooLarge},
      {"target over the buffer", "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n",
       Status::kUriTooLong},
      {"49 headers", "GET / HTTP/1.1\r\nHost: a\r\n" + many + "\r\n",
       Status::kHeaderFieldsTooLarge},
      {"declared body over the limit", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1025\r\n\r\n",
       Status::kContentTooLarge},
      {"chunked body over the limit",
       "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" +
           std::string(1024, 'z') + "\r\n1\r\nz\r\n0\r\n\r\n",
       Status::kContentTooLarge},
      {"bad chunk size", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
       Status::kBadRequest},
      {"length and chunked (smuggling)",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
       Status::kBadRequest},
      {"two lengths",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
       Status::kBadRequest},
      {"control byte in a header value", "GET / HTTP/1.1\r\nHost: a\r\nX: \x01\r\n\r\n",
       Status::kBadRequest},
  };
  for (const Refusal& c : cases) {
    for (std::size_t piece : {1, 1000, 100000}) {
      SCOPED_TRACE(std::string(c.what) + " piece " + std::to_string(piece));
      const Fed fed = feed(c.wire, piece);
      EXPECT_EQ(fed.last, State::kError);
      EXPECT_EQ(code(fed.error), code(c.status));
    }
  }
}

TEST(RequestParser, BodyRoomIsReusedSoABodyMayExceedTheHeadBuffer) {
  // A 3,000-byte chunked body through a 512-byte buffer: body bytes are
  // copied out as parsed and their room reused.
  std::string wire = "POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::string expected;
  for (int i = 0; i < 30; ++i) {
    const std::string chunk(100, static_cast<char>('a' + i % 26));
    wire += "64\r\n" + chunk + "\r\n";
    expected += chunk;
  }
  wire += "0\r\n\r\n";
  const Fed fed = feed(wire, 100, 4096, 512);
  ASSERT_EQ(fed.bodies.size(), 1u);
  EXPECT_EQ(fed.bodies[0], expected);
}

}  // namespace
}  // namespace starling::net::http
