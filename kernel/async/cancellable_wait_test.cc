#include "kernel/async/cancellable_wait.h"

#include <gtest/gtest.h>

#include "kernel/async/deadline.h"
#include "kernel/async/event.h"
#include "kernel/async/scope.h"
#include "kernel/async/semaphore.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"
#include "kernel/hal/clock.h"

// Waits bounded in place (cancellable_wait.h): no frame, the same outcomes
// as a bounded task, and a wait that woke its task before the deadline
// fired keeps its result.
namespace starling::async {
namespace {

using CancellableWaitTest = testing::RuntimeTest;

static_assert(CancellableWait<Event::Awaiter>);
static_assert(CancellableWait<Semaphore::Awaiter>);
static_assert(CancellableWait<InterruptSource::Awaiter>);
static_assert(!CancellableWait<SleepAwaiter>);  // bounded through a task, as before

// The deadline first: kTimedOut, the wait unlinked (a set() afterwards
// would schedule a stale waiter: ASan), the timer gone, no frame taken.
TEST_F(CancellableWaitTest, TimesOutWithoutAFrame) {
  Event never;
  std::uint64_t frames = 0;
  auto body = [&]() -> Task<void> {
    const std::uint64_t before = frames_.allocations();
    Result<void> r = co_await with_timeout(never.wait(), 2 * kMillisecond);
    frames = frames_.allocations() - before;
    if (r.ok() || r.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    co_return {};
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(frames, 0u);
  never.set();
  EXPECT_TRUE(executor_.timers().empty());
}

// The wait first: its result, the timer removed.
TEST_F(CancellableWaitTest, WaitFirstRemovesTheTimer) {
  Event e;
  auto setter = [&]() -> Task<void> {
    co_await sleep_for(kMillisecond);
    e.set();
    co_return {};
  };
  auto body = [&]() -> Task<void> {
    Scope scope;
    (void)scope.spawn(setter());
    Result<void> r = co_await with_timeout(e.wait(), kSecond);
    if (!r.ok()) co_return r;
    co_return co_await scope.join();
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_TRUE(executor_.timers().empty());
}

// The race a frameless wait must get right: the semaphore hands the permit
// over (the waiter is woken, not yet run) and the deadline then passes
// before the waiter runs. The permit is the waiter's: the result is ok and
// no permit is lost or counted twice.
TEST_F(CancellableWaitTest, WokenBeforeTheDeadlineFiredKeepsWhatItWasHanded) {
  Semaphore permits(0);
  std::uint64_t deadline = 0;
  Result<void> got = Unexpected(Error::kCancelled);
  auto waiter = [&]() -> Task<void> {
    got = co_await with_deadline(permits.acquire(), deadline);
    co_return {};
  };
  auto releaser = [&]() -> Task<void> {
    permits.release();
    while (hal::now_ns() <= deadline) {
    }
    co_return {};
  };
  auto body = [&]() -> Task<void> {
    deadline = hal::now_ns() + 2 * kMillisecond;
    Scope scope;
    (void)scope.spawn(waiter());
    co_await yield();  // the waiter parks
    (void)scope.spawn(releaser());
    co_return co_await scope.join();
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  ASSERT_TRUE(got.ok()) << error_name(got.error());
  EXPECT_EQ(permits.available(), 0u);
  EXPECT_TRUE(executor_.timers().empty());
}

// One Deadline across many waits: one timer, no frame per wait.
TEST_F(CancellableWaitTest, DeadlineBoundsWaitsWithOneTimerAndNoFrames) {
  Deadline deadline;
  Event e;
  std::uint64_t frames = 0;
  auto body = [&]() -> Task<void> {
    const std::uint64_t at = hal::now_ns() + kSecond;
    const std::uint64_t before = frames_.allocations();
    for (int i = 0; i < 10; ++i) {
      deadline.set(at);
      e.set();
      Result<void> r = co_await deadline.bound(e.wait());
      e.reset();
      if (!r.ok()) co_return r;
    }
    frames = frames_.allocations() - before;
    deadline.set(hal::now_ns() + kMillisecond);
    Result<void> late = co_await deadline.bound(e.wait());
    if (late.ok() || late.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    co_return {};
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(frames, 0u);
  EXPECT_EQ(deadline.arms(), 2u);
}

// A task cancelled while its bounded wait is parked: the wait and the
// timer unlink; nothing fires later.
TEST_F(CancellableWaitTest, CancelledWhileParkedLeavesNothingBehind) {
  Event never;
  auto parked = [&]() -> Task<void> {
    auto r = co_await with_timeout(never.wait(), 5 * kMillisecond);
    co_return r;
  };
  auto body = [&]() -> Task<void> {
    Scope scope;
    (void)scope.spawn(parked());
    co_await yield();
    scope.cancel();
    co_await sleep_for(10 * kMillisecond);
    co_return co_await scope.join();
  };
  (void)executor_.block_on(body());
  never.set();
  EXPECT_TRUE(executor_.timers().empty());
}

}  // namespace
}  // namespace starling::async
