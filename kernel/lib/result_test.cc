#include "kernel/lib/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace starling {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Unexpected(Error::kMalformed);
  return c - '0';
}

TEST(Result, CarriesValueOrError) {
  auto good = parse_digit('7');
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  auto bad = parse_digit('x');
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::kMalformed);
  EXPECT_EQ(bad.value_or(-1), -1);
  EXPECT_STREQ(error_name(bad.error()), "malformed");
}

TEST(Result, OwnsNonTrivialValues) {
  Result<std::string> s = std::string(100, 'a');
  Result<std::string> copy = s;
  Result<std::string> moved = std::move(s);
  EXPECT_EQ(copy->size(), 100u);
  EXPECT_EQ(moved->size(), 100u);
  copy = Unexpected(Error::kNoMemory);  // destroys the string (ASan checks the leak)
  EXPECT_FALSE(copy.ok());
  Result<std::unique_ptr<int>> p = std::make_unique<int>(3);
  Result<std::unique_ptr<int>> q = std::move(p);
  EXPECT_EQ(**q, 3);
}

TEST(Result, VoidResult) {
  Result<void> ok;
  Result<void> failed = Unexpected(Error::kTimedOut);
  EXPECT_TRUE(ok.ok());
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), Error::kTimedOut);
}

}  // namespace
}  // namespace starling
