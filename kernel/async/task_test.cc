#include "kernel/async/task.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <memory>
#include <vector>

#include "kernel/async/event.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/test_support.h"
#include "kernel/async/yield.h"

namespace starling::async {
namespace {

using testing::RuntimeTest;
using TaskTest = RuntimeTest;

Task<int> answer(bool* ran) {
  *ran = true;
  co_return 42;
}

Task<int> fail_with(Error e) {
  co_return Unexpected(e);
}

Task<void> ok_void() {
  co_return {};
}

Task<std::unique_ptr<int>> boxed(int v) {
  co_return std::make_unique<int>(v);
}

TEST_F(TaskTest, IsLazyAndReturnsItsValue) {
  bool ran = false;
  Task<int> t = answer(&ran);
  EXPECT_TRUE(t.valid());
  EXPECT_FALSE(ran);
  EXPECT_EQ(frames_.frames_in_use(), 1u);
  Result<int> r = executor_.block_on(std::move(t));
  EXPECT_TRUE(ran);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
}

Task<int> caller() {
  Result<int> bad = co_await fail_with(Error::kBusy);
  if (bad.ok() || bad.error() != Error::kBusy) co_return Unexpected(Error::kMalformed);
  Result<void> v = co_await ok_void();
  if (!v) co_return Unexpected(v.error());
  Result<std::unique_ptr<int>> p = co_await boxed(7);
  co_return **p;
}

TEST_F(TaskTest, ErrorsAndMoveOnlyValuesPassThroughCoAwait) {
  Result<int> r = executor_.block_on(caller());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  Result<int> e = executor_.block_on(fail_with(Error::kDeviceError));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::kDeviceError);
}

// Even where clang could elide the frame (HALO: it sees the task created and
// destroyed in one function), it comes from the frame allocator: counted,
// bounded, never on the native stack. (At -O2, clang 19's elided frames also
// broke block_on; see detail::destroy_frame.)
TEST_F(TaskTest, FramesComeFromTheAllocatorEvenWhenElisionIsPossible) {
  const std::uint64_t before = frames_.allocations();
  Result<int> r = executor_.block_on(fail_with(Error::kBusy));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kBusy);
  Result<int> v = executor_.block_on(caller());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 7);
  EXPECT_EQ(frames_.allocations() - before, 5u);  // fail_with, caller + its 3 children
}

Task<int> wait_then(Event& event, int value) {
  co_await event.wait();
  co_return value;
}

Task<int> add_one(Task<int> inner) {
  Result<int> r = co_await inner;
  if (!r) co_return Unexpected(r.error());
  co_return *r + 1;
}

TEST_F(TaskTest, DestroyingASuspendedTaskFreesItsWholeChain) {
  Event never;
  {
    Scope scope;
    ASSERT_TRUE(scope.spawn(add_one(add_one(wait_then(never, 1)))).ok());
    executor_.run();  // runs until the leaf waits; nothing can wake it
    EXPECT_EQ(frames_.frames_in_use(), 3u);
    EXPECT_EQ(scope.size(), 1u);
  }  // the scope cancels its child: three frames destroyed, the wait unlinked
  EXPECT_EQ(frames_.frames_in_use(), 0u);
  never.set();  // no waiter left to touch (ASan would see a freed one)
  EXPECT_EQ(executor_.ready_tasks(), 0u);
}

// Each level awaits the next: 100,000 frames alive at once. Starting a child
// and returning to the parent are symmetric transfers (tail calls), so the
// native stack does not grow with the depth.
Task<int> depth(int n) {
  if (n == 0) co_return 0;
  Result<int> below = co_await depth(n - 1);
  if (!below) co_return Unexpected(below.error());
  co_return *below + 1;
}

class DeepTaskTest : public RuntimeTest {
 protected:
  DeepTaskTest() : RuntimeTest(std::size_t{64} << 20) {}
};

// Runs `body` on a thread with a 512 KiB stack: 100,000 nested calls of even
// 64 bytes each would need 6.4 MB and crash it.
template <typename F>
void on_small_stack(F body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 512 << 10), 0);
  pthread_t thread;
  auto run = [](void* f) -> void* {
    (*static_cast<F*>(f))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &body), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

TEST_F(DeepTaskTest, HundredThousandLevelsOfCoAwaitDoNotGrowTheStack) {
  constexpr int kDepth = 100'000;
  Result<int> r = Unexpected(Error::kCancelled);
  on_small_stack([&] { r = executor_.block_on(depth(kDepth)); });
  ASSERT_TRUE(r.ok()) << error_name(r.error());
  EXPECT_EQ(*r, kDepth);
  EXPECT_GE(frames_.peak_bytes_in_use(), std::size_t{kDepth} * FrameAllocator::kMinClassBytes);
  EXPECT_EQ(frames_.failed_allocations(), 0u);
}

// A 1 KiB arena holds a few frames: the chain breaks where the allocator runs
// out, and kNoMemory travels up to the caller; every frame is given back.
class TinyArenaTest : public RuntimeTest {
 protected:
  TinyArenaTest() : RuntimeTest(1024) {}
};

TEST_F(TinyArenaTest, AllocationFailureReachesTheCallerAsNoMemory) {
  Task<int> deep = depth(1000);
  ASSERT_TRUE(deep.valid());
  Result<int> r = executor_.block_on(std::move(deep));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kNoMemory);
  EXPECT_EQ(frames_.failed_allocations(), 1u);
  EXPECT_EQ(frames_.frames_in_use(), 0u);
  // Nothing corrupted: the arena serves a short chain now.
  Result<int> again = executor_.block_on(depth(2));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 2);
  EXPECT_EQ(frames_.failed_allocations(), 1u);
}

TEST_F(TinyArenaTest, EmptyTaskYieldsNoMemoryWhenAwaitedOrSpawned) {
  std::vector<Task<int>> hold;
  while (true) {
    Task<int> t = depth(0);
    if (!t.valid()) {
      EXPECT_EQ(frames_.failed_allocations(), 1u);
      Result<int> r = executor_.block_on(std::move(t));
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.error(), Error::kNoMemory);
      break;
    }
    hold.push_back(std::move(t));
    ASSERT_LT(hold.size(), 1024u);
  }
  Result<void> spawned = executor_.spawn(depth(0));
  ASSERT_FALSE(spawned.ok());
  EXPECT_EQ(spawned.error(), Error::kNoMemory);
  EXPECT_EQ(executor_.failed_tasks(), 1u);
  EXPECT_EQ(frames_.failed_allocations(), 2u);
  hold.clear();
  EXPECT_EQ(frames_.frames_in_use(), 0u);
}

}  // namespace
}  // namespace starling::async
