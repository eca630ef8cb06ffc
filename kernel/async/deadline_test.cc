#include "kernel/async/deadline.h"

#include <gtest/gtest.h>

#include "kernel/async/event.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/yield.h"
#include "kernel/hal/clock.h"

namespace starling::async {
namespace {

using DeadlineTest = testing::RuntimeTest;

Task<int> wait_event(Event& e, int v) {
  co_await e.wait();
  co_return v;
}

// Many waits that finish first, one deadline: the timer is put in the
// queue once and stays there between the waits.
TEST_F(DeadlineTest, WaitsThatFinishFirstKeepTheOneTimer) {
  Deadline deadline;
  Event e;
  auto body = [&]() -> Task<int> {
    const std::uint64_t at = hal::now_ns() + kSecond;
    int sum = 0;
    for (int i = 0; i < 10; ++i) {
      deadline.set(at);
      e.set();
      Result<int> r = co_await deadline.bound(wait_event(e, i));
      e.reset();
      if (!r.ok()) co_return r;
      sum += *r;
      if (executor_.timers().size() != 1) co_return Unexpected(Error::kBusy);
    }
    co_return sum;
  };
  Result<int> r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(*r, 45);
  EXPECT_EQ(deadline.arms(), 1u);
  EXPECT_FALSE(deadline.passed());
}

// The deadline comes first: the operation (and what it waits on) is
// cancelled, kTimedOut; moving the deadline re-arms it, and a deadline that
// passed with nobody waiting times the next wait out at once.
TEST_F(DeadlineTest, DeadlineFirstCancelsAndAPassedOneTimesOutAtOnce) {
  Deadline deadline;
  Event never;
  auto body = [&]() -> Task<void> {
    deadline.set(hal::now_ns() + 2 * kMillisecond);
    Result<int> r = co_await deadline.bound(wait_event(never, 1));
    if (r.ok() || r.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    if (!deadline.passed()) co_return Unexpected(Error::kInvalidArgument);
    never.set();  // a waiter left linked would be a destroyed frame scheduled: ASan
    never.reset();
    deadline.set(hal::now_ns() + kMillisecond);
    co_await sleep_for(3 * kMillisecond);  // passes with nobody waiting
    const std::uint64_t t0 = hal::now_ns();
    r = co_await deadline.bound(wait_event(never, 2));
    if (r.ok() || r.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    if (hal::now_ns() - t0 > kMillisecond) co_return Unexpected(Error::kDeviceError);
    co_return {};
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(deadline.arms(), 2u);
  EXPECT_TRUE(executor_.timers().empty());
}

// A deadline moved later while armed (an idle limit pushed back by each
// read) keeps its timer where it was; that timer, when it comes, goes on
// to the new moment without timing the wait out; moved earlier, it is
// re-armed at once.
TEST_F(DeadlineTest, MovedLaterKeepsTheTimerAndFiresOnlyAtTheNewMoment) {
  Deadline deadline;
  Event never;
  auto body = [&]() -> Task<void> {
    const std::uint64_t t0 = hal::now_ns();
    deadline.set(t0 + 2 * kMillisecond);
    for (int i = 1; i <= 5; ++i) deadline.set(t0 + (2 + 2 * i) * kMillisecond);
    if (deadline.arms() != 1) co_return Unexpected(Error::kBusy);
    if (executor_.timers().top()->deadline() != t0 + 2 * kMillisecond) {
      co_return Unexpected(Error::kBusy);
    }
    Result<int> r = co_await deadline.bound(wait_event(never, 1));
    if (r.ok() || r.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    // Not at the first moment: at the last one set() gave.
    if (hal::now_ns() < t0 + 12 * kMillisecond) co_return Unexpected(Error::kDeviceError);
    if (deadline.moves() != 1) co_return Unexpected(Error::kInvalidArgument);
    // Earlier than the armed timer: re-armed there.
    deadline.set(hal::now_ns() + kSecond);
    deadline.set(hal::now_ns() + kMillisecond);
    if (deadline.arms() != 3) co_return Unexpected(Error::kBusy);
    const std::uint64_t t1 = hal::now_ns();
    r = co_await deadline.bound(wait_event(never, 2));
    if (r.ok() || r.error() != Error::kTimedOut) co_return Unexpected(Error::kBusy);
    if (hal::now_ns() - t1 > 500 * kMillisecond) co_return Unexpected(Error::kDeviceError);
    co_return {};
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_TRUE(executor_.timers().empty());
}

Task<void> wait_bounded(Deadline& deadline, Event& never) {
  deadline.set(hal::now_ns() + 5 * kMillisecond);
  auto r = co_await deadline.bound(wait_event(never, 1));
  if (!r.ok()) co_return Unexpected(r.error());
  co_return {};
}

// A task cancelled while it waits on a bound operation: the operation's
// frame goes, the deadline forgets the waiter, and firing later touches
// nothing (ASan would see it); the Deadline's destructor unlinks the timer.
TEST_F(DeadlineTest, CancelledWaiterLeavesNothingBehind) {
  Event never;
  {
    Deadline deadline;
    auto body = [&]() -> Task<void> {
      Scope scope;
      (void)scope.spawn(wait_bounded(deadline, never));
      co_await yield();
      scope.cancel();
      co_await sleep_for(10 * kMillisecond);  // the deadline fires with no waiter
      co_return co_await scope.join();
    };
    (void)executor_.block_on(body());
    never.set();  // nobody waits any more (a stale waiter: ASan)
  }
  EXPECT_TRUE(executor_.timers().empty());
}

}  // namespace
}  // namespace starling::async
