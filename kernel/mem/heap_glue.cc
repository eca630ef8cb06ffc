// malloc and friends, and operator new/delete, for the riscv64 kernel: all on
// one global Heap. Never built for the host, whose tests keep glibc's
// allocator (and ASan's interposition of it).

#include <stdlib.h>

#include <cstddef>
#include <new>

#include "kernel/mem/heap.h"
#include "kernel/mem/kernel_heap.h"
#include "kernel/mem/out_of_memory.h"

namespace starling::mem {
namespace {

// constinit: usable from the first instruction, before constructors run.
constinit Heap g_heap;

void* allocate_or_die(std::size_t size) {
  void* p = g_heap.allocate(size);
  if (p == nullptr) out_of_memory(size);
  return p;
}

void* allocate_aligned_or_die(std::size_t size, std::align_val_t alignment) {
  void* p = g_heap.allocate_aligned(static_cast<std::size_t>(alignment), size);
  if (p == nullptr) out_of_memory(size);
  return p;
}

}  // namespace

Heap& kernel_heap() {
  return g_heap;
}

}  // namespace starling::mem

extern "C" {

void* malloc(std::size_t size) {
  return starling::mem::kernel_heap().allocate(size);
}

// A refused free (double, foreign) is counted in the heap's stats; C's free
// has no way to report it.
void free(void* pointer) {
  (void)starling::mem::kernel_heap().free(pointer);
}

void* calloc(std::size_t count, std::size_t size) {
  return starling::mem::kernel_heap().allocate_zeroed(count, size);
}

void* realloc(void* pointer, std::size_t size) {
  return starling::mem::kernel_heap().reallocate(pointer, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) {
  return starling::mem::kernel_heap().allocate_aligned(alignment, size);
}

}  // extern "C"

// Plain new cannot return null: out_of_memory() does not return.
void* operator new(std::size_t size) {
  return starling::mem::allocate_or_die(size);
}
void* operator new[](std::size_t size) {
  return starling::mem::allocate_or_die(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return starling::mem::allocate_aligned_or_die(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return starling::mem::allocate_aligned_or_die(size, alignment);
}

// nothrow new reports failure as null.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return starling::mem::kernel_heap().allocate(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return starling::mem::kernel_heap().allocate(size);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return starling::mem::kernel_heap().allocate_aligned(static_cast<std::size_t>(alignment), size);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return starling::mem::kernel_heap().allocate_aligned(static_cast<std::size_t>(alignment), size);
}

// Every delete ends in the same free(): the block header knows its size and
// alignment, so the sized and aligned variants need not.
void operator delete(void* pointer) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete(void* pointer, std::size_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer, std::size_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete(void* pointer, std::align_val_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer, std::align_val_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete(void* pointer, const std::nothrow_t&) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer, const std::nothrow_t&) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete(void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
void operator delete[](void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  (void)starling::mem::kernel_heap().free(pointer);
}
