#ifndef STARLING_DRIVERS_VIRTIO_BARRIER_H_
#define STARLING_DRIVERS_VIRTIO_BARRIER_H_

#include <atomic>

// The fences at every CPU/device hand-off of a virtqueue, named for what they
// order. RISC-V (RVWMO): `fence pred,succ` with r/w = memory and i/o = device
// (MMIO) accesses; ring memory is normal memory the device reads by DMA. On
// the host (tests against a device model in another place in memory), the C++
// fences give the same orderings.
namespace starling::virtio::barrier {

// Descriptor and ring-entry writes before the avail->idx store that
// publishes them (virtio 1.1 §2.7.13: "memory barrier before idx update").
inline void before_publish() {
#if defined(__riscv)
  asm volatile("fence w,w" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// The used->idx load before loading the used elements and buffer contents it
// covers (§2.7.14: "read barrier after reading idx").
inline void after_used_idx() {
#if defined(__riscv)
  asm volatile("fence r,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

// A ring store (avail->idx, or avail->flags re-enabling interrupts) before a
// later load of what the device writes (used->flags to decide on a notify,
// used->idx to re-check for work): store-load order needs a full fence.
inline void store_then_load() {
#if defined(__riscv)
  asm volatile("fence rw,rw" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Ring memory writes before the MMIO store to QueueNotify / Status: the
// device must see the published ring when the doorbell rings.
inline void before_mmio_write() {
#if defined(__riscv)
  asm volatile("fence w,o" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

// An MMIO load (InterruptStatus) before the ring memory loads it prompts.
inline void after_mmio_read() {
#if defined(__riscv)
  asm volatile("fence i,r" ::: "memory");
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}

}  // namespace starling::virtio::barrier

#endif  // STARLING_DRIVERS_VIRTIO_BARRIER_H_
