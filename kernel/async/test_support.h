#ifndef STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_
#define STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"

// Test support (//kernel/async:test_support, testonly): the coroutine runtime
// a host test needs, for the tests of every layer.
namespace starling::async::testing {

// A frame arena, its allocator (current for the fixture's lifetime) and an
// executor. Not a gtest fixture, so rigs that are not tests (and fixtures
// with a base of their own) can hold the runtime by deriving from it; the
// members keep these names, which test bodies use. Members are destroyed in
// reverse: the executor first (it frees detached frames), then the
// allocator. A derived class's own members go before all four.
class RuntimeFixture {
 protected:
  explicit RuntimeFixture(std::size_t arena_bytes = std::size_t{8} << 20)
      : arena_(arena_bytes), frames_(arena_), use_frames_(frames_) {}

  std::vector<std::byte> arena_;
  FrameAllocator frames_;
  ScopedFrameAllocator use_frames_;
  Executor executor_;
};

// Each test gets its own frame arena and executor, so "frames in use went
// back to zero" proves no frame leaked.
class RuntimeTest : public ::testing::Test, public RuntimeFixture {
 protected:
  explicit RuntimeTest(std::size_t arena_bytes = std::size_t{8} << 20)
      : RuntimeFixture(arena_bytes) {}

  void TearDown() override { EXPECT_EQ(frames_.frames_in_use(), 0u) << "a frame leaked"; }
};

}  // namespace starling::async::testing

#endif  // STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_
