#ifndef STARLING_KERNEL_ASYNC_FRAME_ALLOCATOR_H_
#define STARLING_KERNEL_ASYNC_FRAME_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <span>

// Where coroutine frames live: size-class free lists over one arena.
//
// Every Task's promise allocates its frame here (TaskPromise::operator new),
// never from a general heap. Classes are powers of two from 32 bytes to
// 64 KiB; a class's free list is refilled by bumping through the arena, and a
// freed frame goes back on its class's list (frames of one coroutine have one
// size, so the same sizes come back: no fragmentation in steady state).
// Running out returns nullptr, which the promise turns into an empty Task that
// yields Error::kNoMemory: the caller sees it, nothing crashes.
//
// Not thread-safe and not for interrupt context: frames are created and
// destroyed by the executor's hart only.
namespace starling::async {

class FrameAllocator {
 public:
  static constexpr std::size_t kMinClassBytes = 32;
  static constexpr std::size_t kClassCount = 12;  // 32 B .. 64 KiB
  static constexpr std::size_t kMaxFrameBytes = kMinClassBytes << (kClassCount - 1);
  // Frames are aligned like operator new's result.
  static constexpr std::size_t kAlignment = 16;

  // The arena must outlive the allocator and every frame allocated from it.
  explicit FrameAllocator(std::span<std::byte> arena) noexcept;
  ~FrameAllocator();
  FrameAllocator(const FrameAllocator&) = delete;
  FrameAllocator& operator=(const FrameAllocator&) = delete;

  // nullptr when `bytes` exceeds kMaxFrameBytes or the arena is exhausted;
  // either way failed_allocations() counts it.
  void* allocate(std::size_t bytes) noexcept;
  // `bytes` as passed to allocate() (the coroutine's sized operator delete).
  void deallocate(void* frame, std::size_t bytes) noexcept;

  std::size_t frames_in_use() const noexcept { return frames_in_use_; }
  std::size_t bytes_in_use() const noexcept { return bytes_in_use_; }  // class sizes
  std::size_t peak_bytes_in_use() const noexcept { return peak_bytes_in_use_; }
  std::uint64_t allocations() const noexcept { return allocations_; }
  std::uint64_t failed_allocations() const noexcept { return failed_allocations_; }
  std::size_t arena_bytes() const noexcept { return arena_end_ - arena_begin_; }
  bool owns(const void* p) const noexcept {
    auto* b = static_cast<const std::byte*>(p);
    return b >= arena_begin_ && b < arena_end_;
  }

  // The allocator every new frame comes from. Starts as a built-in default
  // (16 MiB on the host, 256 KiB on freestanding builds); the kernel installs
  // its own at boot, tests install a small one to provoke failures.
  static FrameAllocator& current() noexcept {
    return current_ != nullptr ? *current_ : default_allocator();
  }
  // Returns the previous one. Frames must be freed by the allocator that
  // made them: swap only while no frame is alive (or restore before they die).
  static FrameAllocator* set_current(FrameAllocator* allocator) noexcept;

 private:
  struct FreeFrame {
    FreeFrame* next;
  };
  static std::size_t class_of(std::size_t bytes) noexcept;
  static FrameAllocator& default_allocator() noexcept;

  std::byte* arena_begin_;
  std::byte* bump_;
  std::byte* arena_end_;
  FreeFrame* free_[kClassCount] = {};
  std::size_t frames_in_use_ = 0;
  std::size_t bytes_in_use_ = 0;
  std::size_t peak_bytes_in_use_ = 0;
  std::uint64_t allocations_ = 0;
  std::uint64_t failed_allocations_ = 0;

  static FrameAllocator* current_;
};

// Installs an allocator for a scope (a test, a subsystem's start-up), then
// puts the previous one back.
class ScopedFrameAllocator {
 public:
  explicit ScopedFrameAllocator(FrameAllocator& allocator) noexcept
      : previous_(FrameAllocator::set_current(&allocator)) {}
  ~ScopedFrameAllocator() { FrameAllocator::set_current(previous_); }
  ScopedFrameAllocator(const ScopedFrameAllocator&) = delete;
  ScopedFrameAllocator& operator=(const ScopedFrameAllocator&) = delete;

 private:
  FrameAllocator* previous_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_FRAME_ALLOCATOR_H_
