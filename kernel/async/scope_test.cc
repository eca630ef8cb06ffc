#include "kernel/async/scope.h"

#include <gtest/gtest.h>

#include <string>

#include "kernel/async/event.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"

namespace starling::async {
namespace {

using ScopeTest = testing::RuntimeTest;

Task<void> work(std::string* log, char id, int yields, Error fail_with = Error::kCancelled,
                bool fail = false) {
  for (int i = 0; i < yields; ++i) co_await yield();
  log->push_back(id);
  if (fail) co_return Unexpected(fail_with);
  co_return {};
}

TEST_F(ScopeTest, JoinWaitsForEveryChild) {
  std::string log;
  auto parent = [](std::string* l) -> Task<void> {
    Scope scope;
    if (!scope.spawn(work(l, 'a', 3)).ok()) co_return Unexpected(Error::kNoMemory);
    if (!scope.spawn(work(l, 'b', 1)).ok()) co_return Unexpected(Error::kNoMemory);
    if (!scope.spawn(work(l, 'c', 0)).ok()) co_return Unexpected(Error::kNoMemory);
    Result<void> r = co_await scope.join();
    l->push_back('J');
    if (scope.size() != 0) co_return Unexpected(Error::kBusy);
    co_return r;
  };
  ASSERT_TRUE(executor_.block_on(parent(&log)).ok());
  EXPECT_EQ(log, "cbaJ");
}

TEST_F(ScopeTest, JoinReportsTheFirstChildError) {
  std::string log;
  auto parent = [](std::string* l) -> Task<void> {
    Scope scope;
    (void)scope.spawn(work(l, 'a', 2, Error::kDeviceError, true));
    (void)scope.spawn(work(l, 'b', 1, Error::kMalformed, true));
    (void)scope.spawn(work(l, 'c', 0));
    Result<void> r = co_await scope.join();
    if (scope.failures() != 2) co_return Unexpected(Error::kBusy);
    co_return r;
  };
  Result<void> r = executor_.block_on(parent(&log));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kMalformed);  // 'b' failed first
  EXPECT_EQ(log, "cba");
  EXPECT_EQ(executor_.failed_tasks(), 0u);  // scope children report to their scope
}

TEST_F(ScopeTest, JoinWithNoChildrenCompletesAtOnce) {
  auto parent = []() -> Task<void> {
    Scope scope;
    co_return co_await scope.join();
  };
  EXPECT_TRUE(executor_.block_on(parent()).ok());
}

Task<void> forever(Event& never, int* started) {
  ++*started;
  co_await never.wait();
  co_return {};
}

TEST_F(ScopeTest, DestroyingTheScopeCancelsChildren) {
  Event never;
  int started = 0;
  {
    Scope scope;
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(scope.spawn(forever(never, &started)).ok());
    executor_.run();
    EXPECT_EQ(started, 10);
    EXPECT_EQ(frames_.frames_in_use(), 10u);
  }
  EXPECT_EQ(frames_.frames_in_use(), 0u);
}

TEST_F(ScopeTest, CancelWakesTheJoinerWithCancelled) {
  Event never;
  int started = 0;
  Scope scope;
  ASSERT_TRUE(scope.spawn(forever(never, &started)).ok());
  auto joiner = [](Scope& s) -> Task<void> { co_return co_await s.join(); };
  auto canceller = [](Scope& s) -> Task<void> {
    co_await yield();
    s.cancel();
    co_return {};
  };
  ASSERT_TRUE(executor_.spawn(canceller(scope)).ok());
  Result<void> r = executor_.block_on(joiner(scope));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kCancelled);
  EXPECT_EQ(scope.size(), 0u);
}

// A parent cancelled by a timeout takes its scope, and so its children, with it.
TEST_F(ScopeTest, CancellingTheParentCancelsItsChildren) {
  Event never;
  int started = 0;
  auto parent = [](Event& e, int* s) -> Task<void> {
    Scope scope;
    for (int i = 0; i < 3; ++i) (void)scope.spawn(forever(e, s));
    co_return co_await scope.join();
  };
  auto body = [&]() -> Task<void> {
    co_return co_await with_timeout(parent(never, &started), 2 * kMillisecond);
  };
  Result<void> r = executor_.block_on(body());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  EXPECT_EQ(started, 3);
  EXPECT_EQ(frames_.frames_in_use(), 0u);
  never.set();
  EXPECT_EQ(executor_.ready_tasks(), 0u);
}

TEST_F(ScopeTest, ManyChildrenLeaveNothingBehind) {
  std::string log;
  auto parent = [](std::string* l) -> Task<int> {
    Scope scope;
    for (int i = 0; i < 10'000; ++i) {
      if (!scope.spawn(work(l, 'x', i % 3)).ok()) co_return Unexpected(Error::kNoMemory);
    }
    Result<void> r = co_await scope.join();
    if (!r) co_return Unexpected(r.error());
    co_return static_cast<int>(l->size());
  };
  Result<int> r = executor_.block_on(parent(&log));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 10'000);
}

}  // namespace
}  // namespace starling::async
