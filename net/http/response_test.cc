// Response heads byte for byte, routes, and the body buffer pool's bound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/hal/clock.h"
#include "kernel/wall_clock/wall_clock.h"
#include "net/http/body_buffer.h"
#include "net/http/response.h"
#include "net/http/response_head.h"
#include "net/http/router.h"

namespace starling::net::http {
namespace {

std::string head_of(const Response& r, HeadOptions options = {}) {
  char out[1024];
  const std::size_t n = render_head(r, options, out);
  return std::string(out, n);
}

TEST(ResponseHead, ByteForByte) {
  Response r;
  r.content_type = "text/html";
  r.set_body("<p>hi</p>");
  r.add_header("ETag", "\"abc\"");
  EXPECT_EQ(head_of(r),
            "HTTP/1.1 200 OK\r\nServer: starling\r\nContent-Type: text/html\r\n"
            "Content-Length: 9\r\nETag: \"abc\"\r\n\r\n");
  EXPECT_EQ(head_of(r, {.keep_alive = false}),
            "HTTP/1.1 200 OK\r\nServer: starling\r\nContent-Type: text/html\r\n"
            "Content-Length: 9\r\nETag: \"abc\"\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head_of(r, {.keep_alive = true, .http10_keep_alive = true}),
            "HTTP/1.1 200 OK\r\nServer: starling\r\nContent-Type: text/html\r\n"
            "Content-Length: 9\r\nETag: \"abc\"\r\nConnection: keep-alive\r\n\r\n");
  // Over HTTPS: HSTS, and nosniff with the Content-Type.
  EXPECT_EQ(head_of(r, {.hsts_max_age_s = 600, .nosniff = true}),
            "HTTP/1.1 200 OK\r\nServer: starling\r\nContent-Type: text/html\r\n"
            "X-Content-Type-Options: nosniff\r\nContent-Length: 9\r\nETag: \"abc\"\r\n"
            "Strict-Transport-Security: max-age=600\r\n\r\n");
}

TEST(ResponseHead, BodylessStatusesHaveNoLengthAndAllowIsListed) {
  Response not_modified;
  not_modified.status = Status::kNotModified;
  EXPECT_EQ(head_of(not_modified), "HTTP/1.1 304 Not Modified\r\nServer: starling\r\n\r\n");
  Response r = status_response(Status::kMethodNotAllowed);
  r.allow = kGetOrHead | method_bit(Method::kPost);
  EXPECT_EQ(head_of(r),
            "HTTP/1.1 405 Method Not Allowed\r\nServer: starling\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 18\r\n"
            "Allow: GET, HEAD, POST\r\n\r\n");
}

// Once the wall clock is set, a Date header after Server (RFC 9110's
// IMF-fixdate), following the clock from second to second.
TEST(ResponseHead, DateOnceTheClockIsSet) {
  wall_clock::reset_for_testing();
  Response r;
  r.status = Status::kNoContent;
  EXPECT_EQ(head_of(r), "HTTP/1.1 204 No Content\r\nServer: starling\r\n\r\n");
  const std::uint64_t now = hal::now_ns();
  ASSERT_TRUE(wall_clock::set(1'796'558'400LL * wall_clock::kNanosecondsPerSecond, now).ok());
  EXPECT_EQ(head_of(r),
            "HTTP/1.1 204 No Content\r\nServer: starling\r\n"
            "Date: Sun, 06 Dec 2026 12:00:00 GMT\r\n\r\n");
  // Two seconds on (as if the clock were read two seconds later).
  ASSERT_TRUE(wall_clock::set(1'796'558'402LL * wall_clock::kNanosecondsPerSecond, now).ok());
  EXPECT_NE(head_of(r).find("Date: Sun, 06 Dec 2026 12:00:02 GMT\r\n"), std::string::npos);
  wall_clock::reset_for_testing();
}

TEST(ResponseHead, AHeadThatDoesNotFitIsRefused) {
  Response r;
  const std::string big(2000, 'x');
  r.add_header("X-Big", big);
  char out[1024];
  EXPECT_EQ(render_head(r, {}, out), 0u);
  Response full;
  for (std::size_t i = 0; i < kMaxResponseHeaders; ++i) EXPECT_TRUE(full.add_header("A", "b"));
  EXPECT_FALSE(full.add_header("A", "b"));
}

async::Task<Response> ok(const Request&) {
  co_return Response{};
}

TEST(Router, ExactPrefixMethodsAndAllow) {
  static constexpr Route kRoutes[] = {
      {.path = "/metrics", .handler = ok},
      {.path = "/upload", .methods = method_bit(Method::kPost), .handler = ok, .max_body = 100},
      {.path = "/static/", .prefix = true, .handler = ok},
  };
  const Router router(kRoutes);
  EXPECT_EQ(router.match(Method::kGet, "/metrics").route, &kRoutes[0]);
  EXPECT_EQ(router.match(Method::kHead, "/metrics").route, &kRoutes[0]);
  EXPECT_EQ(router.match(Method::kGet, "/static/a/b.css").route, &kRoutes[2]);
  EXPECT_EQ(router.match(Method::kPost, "/upload").route, &kRoutes[1]);
  const RouteMatch wrong = router.match(Method::kPost, "/metrics");
  EXPECT_EQ(wrong.route, nullptr);
  EXPECT_EQ(wrong.status, Status::kMethodNotAllowed);
  EXPECT_EQ(wrong.allowed, kGetOrHead);
  const RouteMatch missing = router.match(Method::kGet, "/metricsx");
  EXPECT_EQ(missing.status, Status::kNotFound);
  EXPECT_EQ(missing.allowed, 0);
}

TEST(BodyBuffer, TheBoundHoldsAndLeasesReturn) {
  const std::uint64_t refused = body_buffer_stats().refused;
  {
    std::vector<BodyBuffer> leases;
    for (std::size_t i = 0; i < kBodyBuffers; ++i) {
      leases.push_back(BodyBuffer::try_acquire());
      ASSERT_TRUE(leases.back().valid());
      EXPECT_EQ(leases.back().data().size(), kBodyBufferBytes);
    }
    EXPECT_EQ(body_buffer_stats().in_use, kBodyBuffers);
    EXPECT_FALSE(BodyBuffer::try_acquire().valid());
    EXPECT_EQ(body_buffer_stats().refused, refused + 1);
    BodyBuffer moved = std::move(leases[0]);
    EXPECT_FALSE(leases[0].valid());
    EXPECT_TRUE(moved.valid());
  }
  EXPECT_EQ(body_buffer_stats().in_use, 0u);
  EXPECT_EQ(body_buffer_stats().high_water, kBodyBuffers);
}

}  // namespace
}  // namespace starling::net::http
