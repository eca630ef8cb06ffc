// The host board's HAL, exercised directly: the executor's tests use it too.
#include "kernel/hal/clock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "kernel/arch/host/interrupts.h"
#include "kernel/async/interrupt_source.h"

namespace starling {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

TEST(HostClock, NowIsMonotonicAndAdvances) {
  const std::uint64_t a = hal::now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::uint64_t b = hal::now_ns();
  EXPECT_GE(b - a, 2 * kMs);
  EXPECT_LT(b - a, 2000 * kMs);
  const std::uint64_t c0 = hal::cycles();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GT(hal::cycles(), c0);
}

TEST(HostClock, MaskingNestsAndRestores) {
  ASSERT_FALSE(host::interrupts_masked());
  const bool outer = hal::mask_interrupts();
  EXPECT_TRUE(outer);
  EXPECT_TRUE(host::interrupts_masked());
  const bool inner = hal::mask_interrupts();
  EXPECT_FALSE(inner);
  hal::restore_interrupts(inner);
  EXPECT_TRUE(host::interrupts_masked());
  hal::restore_interrupts(outer);
  EXPECT_FALSE(host::interrupts_masked());
}

TEST(HostClock, IdleSleepsUntilTheWakeupDeadline) {
  const std::uint64_t deadline = hal::now_ns() + 5 * kMs;
  hal::set_wakeup(deadline);
  EXPECT_EQ(host::wakeup_deadline(), deadline);
  const bool was = hal::mask_interrupts();
  while (hal::now_ns() < deadline) hal::idle();  // may return early; callers loop
  EXPECT_TRUE(host::interrupts_masked());        // returns masked
  hal::restore_interrupts(was);
  EXPECT_GE(hal::now_ns(), deadline);
  hal::set_wakeup(hal::kNoDeadline);
}

TEST(HostClock, ReadableWatchedFdEndsIdleAndSignalsItsSource) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  async::InterruptSource irq;
  ASSERT_TRUE(host::watch_fd(fds[0], irq).ok());
  hal::set_wakeup(hal::kNoDeadline);  // only the fd can end the sleep
  std::thread device([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(write(fds[1], "x", 1), 1);
  });
  const std::uint64_t t0 = hal::now_ns();
  while (!irq.pending()) hal::idle();
  device.join();
  EXPECT_GE(hal::now_ns() - t0, 4 * kMs);
  ASSERT_TRUE(host::unwatch_fd(fds[0]).ok());
  close(fds[0]);
  close(fds[1]);
}

TEST(HostClock, RaiseInterruptFromAnotherThreadEndsIdle) {
  async::InterruptSource irq;
  hal::set_wakeup(hal::kNoDeadline);
  std::thread device([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    host::raise_interrupt(irq);
  });
  while (!irq.pending()) hal::idle();
  device.join();
  EXPECT_TRUE(irq.pending());
}

}  // namespace
}  // namespace starling
