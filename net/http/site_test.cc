// An embedded site (testdata/site through site.bzl): paths, Content-Type by
// extension, ETags and 304s, and If-None-Match's grammar.
#include "net/http/site.h"

#include <gtest/gtest.h>

#include <string>

#include "kernel/async/executor.h"
#include "kernel/async/test_support.h"
#include "net/http/test_site_files.h"

namespace starling::net::http {
namespace {

using SiteTest = async::testing::RuntimeTest;

std::string body_of(const Response& r) {
  return std::string(reinterpret_cast<const char*>(r.body.data()), r.body.size());
}

TEST_F(SiteTest, FilesTheirTypesAndIndexes) {
  const Site& site = site::test_site();
  ASSERT_EQ(site.files.size(), 3u);
  EXPECT_EQ(site.files[0].path, "/css/a.css");  // sorted
  EXPECT_EQ(site.find("/css/a.css")->content_type, "text/css; charset=utf-8");
  EXPECT_EQ(site.find("/data.json")->content_type, "application/json");
  EXPECT_EQ(site.find("/nope"), nullptr);
  const SiteFile* index = site.find("/index.html");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->etag.size(), 18u);  // 16 hex digits, quoted
  EXPECT_EQ(index->data, "<!doctype html>\n<title>t</title>\n<p>index\n");

  Request get;
  get.method = Method::kGet;
  get.path = "/";
  get.context = &site;
  auto r = executor_.block_on(serve_site(get));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, Status::kOk);
  EXPECT_EQ(body_of(*r), index->data);
  EXPECT_EQ(r->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(r->header_count, 1u);
  EXPECT_EQ(r->headers[0].value, index->etag);
  // The body is the file where it is, not a copy.
  EXPECT_EQ(static_cast<const void*>(r->body.data()), static_cast<const void*>(index->data.data()));

  get.headers[0] = {.name = "If-None-Match", .value = index->etag};
  get.header_count = 1;
  auto cached = executor_.block_on(serve_site(get));
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->status, Status::kNotModified);
  EXPECT_TRUE(cached->body.empty());

  get.path = "/missing.html";
  auto missing = executor_.block_on(serve_site(get));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, Status::kNotFound);
}

TEST(EtagMatches, ListsWeakTagsAndStar) {
  EXPECT_TRUE(etag_matches("\"a\"", "\"a\""));
  EXPECT_TRUE(etag_matches("W/\"a\"", "\"a\""));
  EXPECT_TRUE(etag_matches("\"x\", W/\"y\" ,\"a\"", "\"a\""));
  EXPECT_TRUE(etag_matches("*", "\"a\""));
  EXPECT_FALSE(etag_matches("", "\"a\""));
  EXPECT_FALSE(etag_matches("\"b\"", "\"a\""));
  EXPECT_FALSE(etag_matches("a", "\"a\""));
  EXPECT_FALSE(etag_matches("\"unterminated", "\"unterminated\""));
}

}  // namespace
}  // namespace starling::net::http
