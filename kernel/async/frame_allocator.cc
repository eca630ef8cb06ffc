#include "kernel/async/frame_allocator.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STARLING_FRAME_ALLOCATOR_ASAN 1
#endif
#endif

#ifdef STARLING_FRAME_ALLOCATOR_ASAN
// From <sanitizer/asan_interface.h>, declared here so the header need not be
// on the include path. A free frame is poisoned, so a use after free (or a
// read past a frame into its neighbour) in a host test is an ASan report,
// although the memory never goes back to malloc.
extern "C" void __asan_poison_memory_region(void const volatile* addr, std::size_t size);
extern "C" void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
#endif

namespace starling::async {
namespace {

void poison(void* p, std::size_t n) {
#ifdef STARLING_FRAME_ALLOCATOR_ASAN
  __asan_poison_memory_region(p, n);
#else
  (void)p;
  (void)n;
#endif
}

void unpoison(void* p, std::size_t n) {
#ifdef STARLING_FRAME_ALLOCATOR_ASAN
  __asan_unpoison_memory_region(p, n);
#else
  (void)p;
  (void)n;
#endif
}

std::byte* align_up(std::byte* p, std::size_t alignment) {
  auto v = reinterpret_cast<std::uintptr_t>(p);
  v = (v + alignment - 1) & ~(std::uintptr_t{alignment} - 1);
  return reinterpret_cast<std::byte*>(v);
}

// The built-in arena: big enough for the host tests' default use; the kernel
// replaces it at boot with an arena carved from the memory map.
#if __STDC_HOSTED__
constexpr std::size_t kDefaultArenaBytes = std::size_t{16} << 20;
#else
constexpr std::size_t kDefaultArenaBytes = std::size_t{256} << 10;
#endif
alignas(FrameAllocator::kAlignment) std::byte g_default_arena[kDefaultArenaBytes];

}  // namespace

FrameAllocator* FrameAllocator::current_ = nullptr;

FrameAllocator::FrameAllocator(std::span<std::byte> arena) noexcept
    : arena_begin_(align_up(arena.data(), kAlignment)),
      bump_(arena_begin_),
      arena_end_(arena.data() + arena.size()) {
  if (arena_begin_ > arena_end_) arena_begin_ = bump_ = arena_end_;
  poison(arena_begin_, arena_end_ - arena_begin_);
}

FrameAllocator::~FrameAllocator() {
  // The arena's owner may hand the memory to someone else now.
  unpoison(arena_begin_, arena_end_ - arena_begin_);
}

FrameAllocator& FrameAllocator::default_allocator() noexcept {
  // Never destroyed: no __cxa_atexit registration (the kernel has none).
  [[clang::no_destroy]] static FrameAllocator allocator{std::span<std::byte>(g_default_arena)};
  return allocator;
}

FrameAllocator* FrameAllocator::set_current(FrameAllocator* allocator) noexcept {
  FrameAllocator* previous = current_;
  current_ = allocator;
  return previous;
}

// ceil(log2(bytes)) - log2(kMinClassBytes), by halving steps rather than
// std::bit_width: RV64IMAC has no count-leading-zeros instruction (that is
// Zbb), and clang's expansion of one cost ~40 instructions on every frame
// allocated and freed, twice per echoed packet (issue 14). Four compares
// cover the 12 classes.
std::size_t FrameAllocator::class_of(std::size_t bytes) noexcept {
  static_assert(kMinClassBytes == 32 && kClassCount <= 16);
  if (bytes <= kMinClassBytes) return 0;
  std::size_t v = (bytes - 1) >> 5;  // >= 1: bytes is in class bit_width(v)
  std::size_t cls = 0;
  if (v >= std::size_t{1} << 8) {
    v >>= 8;
    cls += 8;
  }
  if (v >= std::size_t{1} << 4) {
    v >>= 4;
    cls += 4;
  }
  if (v >= std::size_t{1} << 2) {
    v >>= 2;
    cls += 2;
  }
  if (v >= std::size_t{1} << 1) {
    v >>= 1;
    cls += 1;
  }
  return cls + v;  // v is 1 here
}

void* FrameAllocator::allocate(std::size_t bytes) noexcept {
  if (bytes > kMaxFrameBytes) {
    ++failed_allocations_;
    return nullptr;
  }
  const std::size_t cls = class_of(bytes);
  const std::size_t class_bytes = kMinClassBytes << cls;
  void* frame;
  if (FreeFrame* f = free_[cls]; f != nullptr) {
    unpoison(f, class_bytes);
    free_[cls] = f->next;
    frame = f;
  } else if (static_cast<std::size_t>(arena_end_ - bump_) >= class_bytes) {
    frame = bump_;
    bump_ += class_bytes;
    unpoison(frame, class_bytes);
  } else {
    ++failed_allocations_;
    return nullptr;
  }
  ++allocations_;
  ++frames_in_use_;
  bytes_in_use_ += class_bytes;
  if (bytes_in_use_ > peak_bytes_in_use_) peak_bytes_in_use_ = bytes_in_use_;
  return frame;
}

void FrameAllocator::deallocate(void* frame, std::size_t bytes) noexcept {
  if (frame == nullptr) return;
  const std::size_t cls = class_of(bytes);
  const std::size_t class_bytes = kMinClassBytes << cls;
  auto* f = static_cast<FreeFrame*>(frame);
  f->next = free_[cls];
  free_[cls] = f;
  poison(f, class_bytes);
  --frames_in_use_;
  bytes_in_use_ -= class_bytes;
}

}  // namespace starling::async
