#ifndef STARLING_DRIVERS_DWMAC_BARRIER_H_
#define STARLING_DRIVERS_DWMAC_BARRIER_H_

#include <atomic>

// The fences at each CPU/DMA hand-off of the descriptor rings, named for
// what they order. RISC-V (RVWMO): `fence pred,succ` with r/w = memory and
// i/o = device (MMIO) accesses. On the host (a device model), the C++ fences
// give the same orderings.
namespace starling::dwmac::barrier {

// Descriptor words (DES0-2) and buffer contents before the DES3 store that
// sets OWN: the DMA may fetch the descriptor the moment it sees OWN.
inline void before_own() {
#if defined(__riscv)
  asm volatile("fence w,w" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// A DES3 load that saw OWN clear before loading the written-back words and
// the buffer the DMA filled.
inline void after_own() {
#if defined(__riscv)
  asm volatile("fence r,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// Descriptor stores (OWN set) before the tail-pointer MMIO store that lets
// the DMA fetch them, or any other doorbell-like register write.
inline void before_mmio_write() {
#if defined(__riscv)
  asm volatile("fence w,o" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// An MMIO load (DMA_CH0_STATUS) before the descriptor loads it prompts.
inline void after_mmio_read() {
#if defined(__riscv)
  asm volatile("fence i,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// An MMIO store (interrupt enable turned back on) before re-reading the
// rings: a completion that raced with it is either seen now or interrupts.
inline void mmio_write_then_load() {
#if defined(__riscv)
  asm volatile("fence o,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace starling::dwmac::barrier

#endif  // STARLING_DRIVERS_DWMAC_BARRIER_H_
