#include "kernel/async/semaphore.h"

#include <gtest/gtest.h>

#include <string>

#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"

namespace starling::async {
namespace {

using SemaphoreTest = testing::RuntimeTest;

Task<void> acquire_and_log(Semaphore& s, std::string* log, char id) {
  co_await s.acquire();
  log->push_back(id);
  co_return {};
}

Task<void> release(Semaphore& s, std::size_t n) {
  s.release(n);
  co_return {};
}

TEST_F(SemaphoreTest, PermitsAreCountedAndWaitersServedInOrder) {
  Semaphore s(2);
  std::string log;
  for (char id : std::string("abcde")) {
    ASSERT_TRUE(executor_.spawn(acquire_and_log(s, &log, id)).ok());
  }
  executor_.run();
  EXPECT_EQ(log, "ab");
  EXPECT_EQ(s.available(), 0u);
  ASSERT_TRUE(executor_.spawn(release(s, 2)).ok());
  executor_.run();
  EXPECT_EQ(log, "abcd");
  s.release(3);  // one for 'e', two left over
  executor_.run();
  EXPECT_EQ(log, "abcde");
  EXPECT_EQ(s.available(), 2u);
  EXPECT_TRUE(s.try_acquire());
  EXPECT_TRUE(s.try_acquire());
  EXPECT_FALSE(s.try_acquire());
}

TEST_F(SemaphoreTest, ReleaseHandsThePermitToTheWaiterNotALatecomer) {
  Semaphore s(0);
  std::string log;
  ASSERT_TRUE(executor_.spawn(acquire_and_log(s, &log, 'a')).ok());
  executor_.run();
  s.release();
  EXPECT_FALSE(s.try_acquire());  // already handed to 'a'
  executor_.run();
  EXPECT_EQ(log, "a");
}

TEST_F(SemaphoreTest, CancelledWaiterHoldingAPermitPassesItOn) {
  Semaphore s(0);
  std::string log;
  Scope scope;
  ASSERT_TRUE(scope.spawn(acquire_and_log(s, &log, 'a')).ok());
  ASSERT_TRUE(executor_.spawn(acquire_and_log(s, &log, 'b')).ok());
  executor_.run();
  s.release();     // granted to 'a', which has not run yet
  scope.cancel();  // 'a' dies before running: its permit goes to 'b'
  executor_.run();
  EXPECT_EQ(log, "b");
  EXPECT_EQ(s.available(), 0u);
}

TEST_F(SemaphoreTest, CancelledWaiterIsUnlinked) {
  Semaphore s(0);
  std::string log;
  {
    Scope scope;
    ASSERT_TRUE(scope.spawn(acquire_and_log(s, &log, 'a')).ok());
    executor_.run();
  }
  s.release();
  EXPECT_EQ(s.available(), 1u);
  EXPECT_EQ(log, "");
}

}  // namespace
}  // namespace starling::async
