#include "kernel/async/timeout.h"

#include <gtest/gtest.h>

#include "kernel/async/event.h"
#include "kernel/async/scope.h"
#include "kernel/async/semaphore.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/yield.h"
#include "kernel/hal/clock.h"

namespace starling::async {
namespace {

using TimeoutTest = testing::RuntimeTest;

Task<int> quick(int v) {
  co_await yield();
  co_return v;
}

Task<int> slow(std::uint64_t ns, int v) {
  co_await sleep_for(ns);
  co_return v;
}

Task<int> wait_event(Event& e, int v) {
  co_await e.wait();
  co_return v;
}

Task<int> nested(Event& e) {
  Result<int> r = co_await wait_event(e, 5);
  co_return r;
}

TEST_F(TimeoutTest, OperationThatFinishesFirstKeepsItsResult) {
  auto body = []() -> Task<int> { co_return co_await with_timeout(quick(9), kSecond); };
  Result<int> r = executor_.block_on(body());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 9);
  EXPECT_TRUE(executor_.timers().empty());  // its timer was removed
}

TEST_F(TimeoutTest, SleepingOperationIsCancelledAtTheDeadline) {
  auto body = []() -> Task<int> {
    co_return co_await with_timeout(slow(10 * kSecond, 1), 3 * kMillisecond);
  };
  const std::uint64_t t0 = hal::now_ns();
  Result<int> r = executor_.block_on(body());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  EXPECT_GE(hal::now_ns() - t0, 3 * kMillisecond);
  EXPECT_LT(hal::now_ns() - t0, kSecond);
  EXPECT_TRUE(executor_.timers().empty());  // the inner sleep's timer too
  EXPECT_EQ(frames_.frames_in_use(), 0u);
}

TEST_F(TimeoutTest, CancelsAChainWaitingOnAnEvent) {
  Event e;
  auto body = [](Event& ev) -> Task<int> {
    co_return co_await with_timeout(nested(ev), 2 * kMillisecond);
  };
  Result<int> r = executor_.block_on(body(e));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  EXPECT_EQ(frames_.frames_in_use(), 0u);
  e.set();  // its waiter was unlinked: nothing is woken, nothing freed is touched
  EXPECT_EQ(executor_.ready_tasks(), 0u);
}

// The inner task has been woken (it sits in the ready queue) when the
// deadline is found to have passed: it is taken out of the queue and
// destroyed; it never runs.
Task<void> set_after(Event& e, std::uint64_t when) {
  while (hal::now_ns() < when) {
  }
  e.set();
  co_return {};
}

TEST_F(TimeoutTest, CancelsAnOperationThatWasWokenButHasNotRun) {
  Event e;
  const std::uint64_t deadline = hal::now_ns() + 2 * kMillisecond;
  bool inner_ran = false;
  auto inner = [](Event& ev, bool* ran) -> Task<int> {
    co_await ev.wait();
    *ran = true;
    co_return 1;
  };
  auto body = [&]() -> Task<int> {
    // Runs in the pass after the inner task starts waiting.
    if (!executor_.spawn(set_after(e, deadline)).ok()) co_return Unexpected(Error::kNoMemory);
    co_return co_await with_deadline(inner(e, &inner_ran), deadline);
  };
  Result<int> r = executor_.block_on(body());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  EXPECT_FALSE(inner_ran);
  EXPECT_EQ(executor_.ready_tasks(), 0u);
}

TEST_F(TimeoutTest, WrapsPlainAwaitables) {
  Semaphore s(0);
  auto body = [](Semaphore& sem) -> Task<void> {
    co_return co_await with_timeout(sem.acquire(), kMillisecond);
  };
  Result<void> r = executor_.block_on(body(s));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  s.release();
  EXPECT_EQ(s.available(), 1u);  // the cancelled acquire did not take it
  Result<void> ok = executor_.block_on(body(s));
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(s.available(), 0u);
}

TEST_F(TimeoutTest, NestedTimeoutsInnerFiresFirst) {
  auto inner = []() -> Task<int> {
    co_return co_await with_timeout(slow(kSecond, 1), kMillisecond);
  };
  auto outer = [&]() -> Task<int> {
    Result<int> r = co_await with_timeout(inner(), kSecond);
    if (!r && r.error() == Error::kTimedOut) co_return 42;  // the inner one
    co_return Unexpected(Error::kMalformed);
  };
  Result<int> r = executor_.block_on(outer());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_TRUE(executor_.timers().empty());
}

TEST_F(TimeoutTest, CancellingTheWaiterRemovesBothTimers) {
  {
    Scope scope;
    auto body = []() -> Task<int> { co_return co_await with_timeout(slow(kSecond, 1), kSecond); };
    ASSERT_TRUE(scope.spawn(body()).ok());
    ASSERT_TRUE(executor_.run_once());
    EXPECT_EQ(executor_.timers().size(), 2u);
  }
  EXPECT_TRUE(executor_.timers().empty());
  EXPECT_EQ(frames_.frames_in_use(), 0u);
}

class TinyTimeoutTest : public testing::RuntimeTest {
 protected:
  TinyTimeoutTest() : RuntimeTest(512) {}
};

TEST_F(TinyTimeoutTest, EmptyOperationIsNoMemory) {
  // Fill the arena so the operation's frame cannot be allocated.
  std::vector<Task<int>> hold;
  for (Task<int> t = quick(0); t.valid(); t = quick(0)) hold.push_back(std::move(t));
  WithTimeout<int> w = with_timeout(quick(1), kSecond);
  hold.clear();  // room again for the caller's frame
  auto body = [](WithTimeout<int>* aw) -> Task<int> { co_return co_await std::move(*aw); };
  Result<int> r = executor_.block_on(body(&w));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kNoMemory);
}

}  // namespace
}  // namespace starling::async
