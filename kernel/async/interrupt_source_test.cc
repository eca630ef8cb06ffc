#include "kernel/async/interrupt_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "kernel/arch/host/interrupts.h"
#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/clock.h"

namespace starling::async {
namespace {

using InterruptSourceTest = testing::RuntimeTest;

Task<int> wait_irq(InterruptSource& irq, int value) {
  co_await irq.wait();
  co_return value;
}

TEST_F(InterruptSourceTest, SignalBeforeWaitIsNotLost) {
  InterruptSource irq;
  irq.signal();
  EXPECT_TRUE(irq.pending());
  Result<int> r = executor_.block_on(wait_irq(irq, 3));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  EXPECT_FALSE(irq.pending());  // consumed
}

TEST_F(InterruptSourceTest, SignalFromAnotherThreadWakesTheSleepingExecutor) {
  InterruptSource irq;
  const std::uint64_t idle_before = host::idle_calls();
  std::thread device([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    host::raise_interrupt(irq);
  });
  const std::uint64_t t0 = hal::now_ns();
  Result<int> r = executor_.block_on(wait_irq(irq, 7));
  device.join();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  EXPECT_GE(hal::now_ns() - t0, 15 * kMillisecond);
  EXPECT_GT(host::idle_calls(), idle_before);  // it slept in ppoll, not spun
  EXPECT_GT(executor_.idle_cycles(), 0u);
}

Task<int> read_byte_when_ready(InterruptSource& irq, int fd) {
  co_await irq.wait();
  char c = 0;
  if (read(fd, &c, 1) != 1) co_return Unexpected(Error::kDeviceError);
  co_return c;
}

TEST_F(InterruptSourceTest, ReadablePipeFdWakesTheWaiter) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  InterruptSource irq;
  ASSERT_TRUE(host::watch_fd(fds[0], irq).ok());
  EXPECT_EQ(host::watch_fd(fds[0], irq).error(), Error::kBusy);
  std::thread device([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(write(fds[1], "z", 1), 1);
  });
  Result<int> r = executor_.block_on(read_byte_when_ready(irq, fds[0]));
  device.join();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 'z');
  EXPECT_TRUE(host::unwatch_fd(fds[0]).ok());
  EXPECT_EQ(host::unwatch_fd(fds[0]).error(), Error::kNotFound);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(InterruptSourceTest, OneSignalWakesEveryWaiter) {
  InterruptSource irq;
  int sum = 0;
  auto add = [](InterruptSource& s, int* total, int v) -> Task<void> {
    co_await s.wait();
    *total += v;
    co_return {};
  };
  ASSERT_TRUE(executor_.spawn(add(irq, &sum, 1)).ok());
  ASSERT_TRUE(executor_.spawn(add(irq, &sum, 2)).ok());
  ASSERT_TRUE(executor_.run_once());
  EXPECT_FALSE(executor_.run_once());  // both wait
  irq.signal();
  executor_.run();
  EXPECT_EQ(sum, 3);
}

TEST_F(InterruptSourceTest, CancelledWaiterDisarmsTheSource) {
  InterruptSource irq;
  {
    Scope scope;
    ASSERT_TRUE(scope.spawn(wait_irq(irq, 1)).ok());
    ASSERT_TRUE(executor_.run_once());
  }
  executor_.run();  // returns: no task waits for an interrupt any more
  EXPECT_EQ(executor_.idle_count(), 0u);
}

TEST_F(InterruptSourceTest, WaitWithTimeoutGivesUpAndDisarms) {
  InterruptSource irq;
  auto body = [](InterruptSource& s) -> Task<void> {
    Result<void> r = co_await with_timeout(s.wait(), 3 * kMillisecond);
    co_return r;
  };
  Result<void> r = executor_.block_on(body(irq));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  irq.signal();  // nobody waits: stays pending, touches no freed waiter
  EXPECT_TRUE(irq.pending());
  executor_.run();
}

}  // namespace
}  // namespace starling::async
