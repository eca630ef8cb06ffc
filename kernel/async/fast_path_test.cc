#include "kernel/async/fast_path.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernel/async/deadline.h"
#include "kernel/async/event.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/clock.h"

// FastPathAwaiter (fast_path.h): done at once, no frame and no timer; when
// it must wait, its rest is a task that a deadline bounds and cancels.
namespace starling::async {
namespace {

using FastPathTest = testing::RuntimeTest;

// Takes `want` units from a stock; what is missing arrives with `restock`.
struct Stock {
  int units = 0;
  Event restock;
};

class Take {
 public:
  static constexpr bool kFastPathAwaiter = true;
  Take(Stock& stock, int want) noexcept : stock_(&stock), want_(want) {}
  Take(Take&& other) noexcept : stock_(other.stock_), want_(other.want_) {}
  bool await_ready() noexcept { return grab(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
    rest_ = rest();
    if (!rest_.valid()) return parent;
    return rest_.start(parent);
  }
  Result<int> await_resume() noexcept {
    if (taken_ == want_) return taken_;
    return rest_.take_result();
  }
  Task<int> rest() noexcept {
    Stock* stock = stock_;
    int taken = taken_;
    const int want = want_;
    while (taken < want) {
      stock->restock.reset();
      co_await stock->restock.wait();
      const int n = std::min(stock->units, want - taken);
      stock->units -= n;
      taken += n;
    }
    co_return taken;
  }

 private:
  bool grab() noexcept {
    const int n = std::min(stock_->units, want_ - taken_);
    stock_->units -= n;
    taken_ += n;
    return taken_ == want_;
  }
  Stock* stock_;
  int want_;
  int taken_ = 0;
  Task<int> rest_;
};

static_assert(FastPathAwaiter<Take>);

TEST_F(FastPathTest, DoneAtOnceTakesNoFrameAndNoTimer) {
  Stock stock;
  stock.units = 10;
  std::uint64_t frames = 0;
  std::size_t timers = 99;
  auto body = [&]() -> Task<int> {
    const std::uint64_t before = frames_.allocations();
    Result<int> r = co_await with_timeout(Take(stock, 4), kSecond);
    timers = executor_.timers().size();
    Result<int> plain = co_await Take(stock, 3);
    frames = frames_.allocations() - before;
    if (!r.ok()) co_return r;
    if (!plain.ok()) co_return plain;
    co_return *r + *plain;
  };
  Result<int> r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(frames, 0u);
  EXPECT_EQ(timers, 0u);
  EXPECT_EQ(stock.units, 3);
}

TEST_F(FastPathTest, TheRestWaitsAsATaskAndTheDeadlineCancelsIt) {
  Stock stock;
  stock.units = 2;
  auto restocker = [&]() -> Task<void> {
    co_await sleep_for(kMillisecond);
    stock.units += 5;
    stock.restock.set();
    co_return {};
  };
  auto body = [&]() -> Task<void> {
    Scope scope;
    (void)scope.spawn(restocker());
    Result<int> r = co_await with_timeout(Take(stock, 4), kSecond);  // 2 now, 2 later
    if (!r.ok() || *r != 4) co_return Unexpected(Error::kBusy);
    // Never restocked: the rest is cancelled at the deadline; what the
    // fast path took stays taken (as a cancelled TCP write's queued part).
    Deadline deadline;
    deadline.set(hal::now_ns() + 2 * kMillisecond);
    Result<int> late = co_await deadline.bound(Take(stock, 10));
    if (late.ok() || late.error() != Error::kTimedOut) co_return Unexpected(Error::kMalformed);
    co_return co_await scope.join();
  };
  auto r = executor_.block_on(body());
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(stock.units, 0);
  EXPECT_TRUE(executor_.timers().empty());
  stock.restock.set();  // a waiter left linked would be a destroyed frame: ASan
}

}  // namespace
}  // namespace starling::async
