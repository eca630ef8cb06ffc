#ifndef STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_
#define STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"

namespace starling::async::testing {

// Each test gets its own frame arena and executor, so "frames in use went
// back to zero" proves no frame leaked. Members are destroyed in reverse:
// the executor first (it frees detached frames), then the allocator.
class RuntimeTest : public ::testing::Test {
 protected:
  explicit RuntimeTest(std::size_t arena_bytes = std::size_t{8} << 20)
      : arena_(arena_bytes), frames_(arena_), use_frames_(frames_) {}

  void TearDown() override { EXPECT_EQ(frames_.frames_in_use(), 0u) << "a frame leaked"; }

  std::vector<std::byte> arena_;
  FrameAllocator frames_;
  ScopedFrameAllocator use_frames_;
  Executor executor_;
};

}  // namespace starling::async::testing

#endif  // STARLING_KERNEL_ASYNC_TEST_SUPPORT_H_
