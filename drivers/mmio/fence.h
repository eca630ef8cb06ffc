#ifndef STARLING_DRIVERS_MMIO_FENCE_H_
#define STARLING_DRIVERS_MMIO_FENCE_H_

#include <atomic>

// The memory-ordering fences drivers need between the CPU and a device,
// named by what they order. RISC-V (RVWMO): `fence pred,succ`, with r/w =
// normal memory (rings and buffers the device reaches by DMA) and i/o =
// device registers (MMIO). On the host (drivers against device models) the
// C++ fences give at least the same orderings.
//
// Drivers do not call these directly: each names its hand-offs (a
// descriptor's OWN bit, a virtqueue's idx) in its own barrier.h, so the
// reader sees which hand-off a fence protects.
namespace starling::mmio::fence {

// Memory stores before later memory stores (fence w,w).
inline void memory_writes_before_memory_writes() {
#if defined(__riscv)
  asm volatile("fence w,w" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// Memory loads before later memory loads (fence r,r).
inline void memory_reads_before_memory_reads() {
#if defined(__riscv)
  asm volatile("fence r,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// Memory stores before later memory loads: only a full fence orders them.
inline void memory_writes_before_memory_reads() {
#if defined(__riscv)
  asm volatile("fence rw,rw" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Memory stores before a later register store (a doorbell: the device must
// see what the store announces).
inline void memory_writes_before_mmio_writes() {
#if defined(__riscv)
  asm volatile("fence w,o" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// A register load before the memory loads it prompts.
inline void mmio_reads_before_memory_reads() {
#if defined(__riscv)
  asm volatile("fence i,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// A register store before later memory loads.
inline void mmio_writes_before_memory_reads() {
#if defined(__riscv)
  asm volatile("fence o,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace starling::mmio::fence

#endif  // STARLING_DRIVERS_MMIO_FENCE_H_
