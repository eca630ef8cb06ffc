#include "kernel/async/frame_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace starling::async {
namespace {

TEST(FrameAllocator, RoundsUpToSizeClassesAndReusesFreedFrames) {
  std::vector<std::byte> arena(4096);
  FrameAllocator frames(arena);
  void* a = frames.allocate(100);  // 128-byte class
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % FrameAllocator::kAlignment, 0u);
  EXPECT_EQ(frames.bytes_in_use(), 128u);
  EXPECT_EQ(frames.frames_in_use(), 1u);
  void* b = frames.allocate(20);  // 32-byte class
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(frames.bytes_in_use(), 160u);
  frames.deallocate(a, 100);
  void* c = frames.allocate(128);  // same class: the freed frame comes back
  EXPECT_EQ(c, a);
  frames.deallocate(b, 20);
  frames.deallocate(c, 128);
  EXPECT_EQ(frames.frames_in_use(), 0u);
  EXPECT_EQ(frames.bytes_in_use(), 0u);
  EXPECT_EQ(frames.peak_bytes_in_use(), 160u);
  EXPECT_EQ(frames.allocations(), 3u);
  EXPECT_EQ(frames.failed_allocations(), 0u);
}

// Every size up to the largest frame lands in the smallest class that holds
// it: the next power of two, at least kMinClassBytes (class_of's halving
// steps against the plain definition).
TEST(FrameAllocator, EverySizeGetsTheSmallestClassThatHoldsIt) {
  std::vector<std::byte> arena(2 * FrameAllocator::kMaxFrameBytes);
  FrameAllocator frames(arena);
  for (std::size_t bytes = 1; bytes <= FrameAllocator::kMaxFrameBytes; ++bytes) {
    std::size_t want = FrameAllocator::kMinClassBytes;
    while (want < bytes) want *= 2;
    void* frame = frames.allocate(bytes);
    ASSERT_NE(frame, nullptr) << bytes;
    ASSERT_EQ(frames.bytes_in_use(), want) << bytes;
    frames.deallocate(frame, bytes);
  }
}

TEST(FrameAllocator, ExhaustionAndOversizeFailAndAreCounted) {
  std::vector<std::byte> arena(256 + 15);  // room for 256 bytes once aligned
  FrameAllocator frames(arena);
  void* a = frames.allocate(256);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(frames.allocate(32), nullptr);
  EXPECT_EQ(frames.allocate(FrameAllocator::kMaxFrameBytes + 1), nullptr);
  EXPECT_EQ(frames.failed_allocations(), 2u);
  EXPECT_EQ(frames.frames_in_use(), 1u);
  frames.deallocate(a, 256);
  // Freed memory stays in its class: a 256-byte request succeeds again...
  void* b = frames.allocate(200);
  EXPECT_EQ(b, a);
  frames.deallocate(b, 200);
  EXPECT_EQ(frames.frames_in_use(), 0u);
}

TEST(FrameAllocator, CurrentIsReplaceableAndRestored) {
  FrameAllocator& before = FrameAllocator::current();
  std::vector<std::byte> arena(1024);
  FrameAllocator mine(arena);
  {
    ScopedFrameAllocator use(mine);
    EXPECT_EQ(&FrameAllocator::current(), &mine);
  }
  EXPECT_EQ(&FrameAllocator::current(), &before);
  EXPECT_GT(before.arena_bytes(), 0u);  // the built-in default arena
}

TEST(FrameAllocator, ManySizesStayDisjoint) {
  std::vector<std::byte> arena(1 << 20);
  FrameAllocator frames(arena);
  std::vector<std::pair<std::byte*, std::size_t>> live;
  for (std::size_t size = 1; size < 5000; size += 37) {
    auto* p = static_cast<std::byte*>(frames.allocate(size));
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(frames.owns(p));
    for (std::size_t i = 0; i < size; ++i) p[i] = std::byte(size & 0xff);
    live.emplace_back(p, size);
  }
  for (auto [p, size] : live) {
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(p[i], std::byte(size & 0xff));
    frames.deallocate(p, size);
  }
  EXPECT_EQ(frames.frames_in_use(), 0u);
}

}  // namespace
}  // namespace starling::async
