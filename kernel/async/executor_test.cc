#include "kernel/async/executor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/arch/host/interrupts.h"
#include "kernel/async/event.h"
#include "kernel/async/ready_queue.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/yield.h"

namespace starling::async {
namespace {

using ExecutorTest = testing::RuntimeTest;

Task<void> append(std::string* log, char id) {
  log->push_back(id);
  co_return {};
}

TEST_F(ExecutorTest, RunsSpawnedTasksInFifoOrder) {
  std::string log;
  for (char id : std::string("abcde")) ASSERT_TRUE(executor_.spawn(append(&log, id)).ok());
  EXPECT_EQ(log, "");  // spawning does not run anything
  EXPECT_EQ(executor_.detached_tasks(), 5u);
  executor_.run();
  EXPECT_EQ(log, "abcde");
  EXPECT_EQ(executor_.detached_tasks(), 0u);
}

Task<void> take_turns(std::string* log, char id, int turns) {
  for (int i = 0; i < turns; ++i) {
    log->push_back(id);
    co_await yield();
  }
  co_return {};
}

TEST_F(ExecutorTest, YieldingTasksTakeTurnsRoundRobin) {
  std::string log;
  ASSERT_TRUE(executor_.spawn(take_turns(&log, 'a', 3)).ok());
  ASSERT_TRUE(executor_.spawn(take_turns(&log, 'b', 3)).ok());
  ASSERT_TRUE(executor_.spawn(take_turns(&log, 'c', 3)).ok());
  executor_.run();
  EXPECT_EQ(log, "abcabcabc");
}

Task<void> spin_until(const bool* stop, long* iterations) {
  while (!*stop) {
    ++*iterations;
    if (*iterations > 1'000'000) co_return Unexpected(Error::kBusy);  // starved the others
    co_await yield();
  }
  co_return {};
}

Task<void> sleep_then_stop(bool* stop) {
  co_await sleep_for(2 * kMillisecond);
  *stop = true;
  co_return {};
}

// A task that never waits, only yields, must leave room for a timer to fire
// (the executor checks timers between passes).
TEST_F(ExecutorTest, YieldingLoopDoesNotStarveATimer) {
  bool stop = false;
  long iterations = 0;
  ASSERT_TRUE(executor_.spawn(sleep_then_stop(&stop)).ok());
  ASSERT_TRUE(executor_.spawn(spin_until(&stop, &iterations)).ok());
  executor_.run();
  EXPECT_TRUE(stop);
  EXPECT_EQ(executor_.failed_tasks(), 0u);
  EXPECT_GT(iterations, 0);
}

TEST_F(ExecutorTest, YieldWithNobodyElseWaitingDoesNotSuspend) {
  auto body = []() -> Task<int> {
    for (int i = 0; i < 10; ++i) co_await yield();
    co_return 1;
  };
  ASSERT_TRUE(executor_.block_on(body()).ok());
  EXPECT_EQ(executor_.idle_count(), 0u);
}

struct Reported {
  std::vector<Error> errors;
};

void collect(Error e, void* context) {
  static_cast<Reported*>(context)->errors.push_back(e);
}

Task<void> fail(Error e) {
  co_return Unexpected(e);
}

TEST_F(ExecutorTest, DetachedTaskErrorsReachTheReporter) {
  Reported reported;
  executor_.set_error_reporter(&collect, &reported);
  ASSERT_TRUE(executor_.spawn(fail(Error::kDeviceError)).ok());
  std::string log;
  ASSERT_TRUE(executor_.spawn(append(&log, 'x')).ok());
  executor_.run();
  ASSERT_EQ(reported.errors.size(), 1u);
  EXPECT_EQ(reported.errors[0], Error::kDeviceError);
  EXPECT_EQ(executor_.failed_tasks(), 1u);
  EXPECT_EQ(log, "x");
}

Task<void> count(long* n) {
  ++*n;
  co_return {};
}

class ManyTasksTest : public testing::RuntimeTest {
 protected:
  ManyTasksTest() : RuntimeTest(std::size_t{64} << 20) {}
};

TEST_F(ManyTasksTest, HundredThousandShortTasksLeaveNoFrameBehind) {
  const std::size_t baseline = frames_.frames_in_use();
  long n = 0;
  for (int i = 0; i < 100'000; ++i) ASSERT_TRUE(executor_.spawn(count(&n)).ok());
  executor_.run();
  EXPECT_EQ(n, 100'000);
  EXPECT_EQ(frames_.frames_in_use(), baseline);
  EXPECT_EQ(frames_.allocations(), 100'000u);
  // Spawned and finished in small batches, the same frames come back.
  const std::size_t peak = frames_.peak_bytes_in_use();
  for (int batch = 0; batch < 1000; ++batch) {
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(executor_.spawn(count(&n)).ok());
    executor_.run();
  }
  EXPECT_EQ(n, 200'000);
  EXPECT_EQ(frames_.frames_in_use(), baseline);
  EXPECT_EQ(frames_.peak_bytes_in_use(), peak);
}

TEST_F(ExecutorTest, BlockOnATaskThatCanNeverFinishCancelsIt) {
  Event never;
  auto waiter = [](Event& e) -> Task<int> {
    co_await e.wait();
    co_return 1;
  };
  Result<int> r = executor_.block_on(waiter(never));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kCancelled);
  EXPECT_EQ(frames_.frames_in_use(), 0u);
}

Task<void> wait_for(Event& e) {
  co_await e.wait();
  co_return {};
}

TEST(ExecutorLifetime, DestroyingTheExecutorCancelsDetachedTasks) {
  std::vector<std::byte> arena(1 << 16);
  FrameAllocator frames(arena);
  ScopedFrameAllocator use(frames);
  Event never;
  {
    Executor executor;
    ASSERT_TRUE(executor.spawn(wait_for(never)).ok());
    ASSERT_TRUE(executor.spawn(wait_for(never)).ok());
    executor.run();
    EXPECT_EQ(frames.frames_in_use(), 2u);
    EXPECT_EQ(executor.detached_tasks(), 2u);
  }
  EXPECT_EQ(frames.frames_in_use(), 0u);
}

TEST_F(ExecutorTest, UtilisationCountersAreSane) {
  const std::uint64_t idle0 = executor_.idle_cycles();
  const std::uint64_t total0 = executor_.total_cycles();
  auto nap = []() -> Task<void> {
    co_await sleep_for(5 * kMillisecond);
    co_return {};
  };
  ASSERT_TRUE(executor_.block_on(nap()).ok());
  const std::uint64_t idle = executor_.idle_cycles() - idle0;
  const std::uint64_t total = executor_.total_cycles() - total0;
  EXPECT_GT(idle, 0u);
  EXPECT_LE(idle, total);
  EXPECT_GE(executor_.idle_count(), 1u);
  EXPECT_GT(host::idle_calls(), 0u);
  // Asleep most of those 5 ms (generously: this machine may be busy).
  EXPECT_GT(idle * 2, total);
}

TEST(ReadyQueue, FifoWithRemovalFromAnyPosition) {
  struct Node : PromiseBase {};
  Node n[4];
  ReadyQueue q;
  for (Node& x : n) q.push(x);
  EXPECT_EQ(q.size(), 4u);
  q.remove(n[3]);  // the tail
  q.remove(n[1]);  // the middle
  EXPECT_FALSE(n[1].queued());
  q.push(n[1]);
  EXPECT_EQ(q.pop(), &n[0]);
  EXPECT_EQ(q.pop(), &n[2]);
  EXPECT_EQ(q.pop(), &n[1]);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace starling::async
