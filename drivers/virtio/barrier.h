#ifndef STARLING_DRIVERS_VIRTIO_BARRIER_H_
#define STARLING_DRIVERS_VIRTIO_BARRIER_H_

#include "drivers/mmio/fence.h"

// The fences at every CPU/device hand-off of a virtqueue, named for the
// hand-off they protect (the orderings themselves: drivers/mmio/fence.h).
// Ring memory is normal memory the device reads by DMA.
namespace starling::virtio::barrier {

// Descriptor and ring-entry writes before the avail->idx store that
// publishes them (virtio 1.1 §2.7.13: "memory barrier before idx update").
inline void before_publish() {
  mmio::fence::memory_writes_before_memory_writes();
}

// The used->idx load before loading the used elements and buffer contents it
// covers (§2.7.14: "read barrier after reading idx").
inline void after_used_idx() {
  mmio::fence::memory_reads_before_memory_reads();
}

// A ring store (avail->idx, or avail->flags re-enabling interrupts) before a
// later load of what the device writes (used->flags to decide on a notify,
// used->idx to re-check for work): store-load order needs a full fence.
inline void store_then_load() {
  mmio::fence::memory_writes_before_memory_reads();
}

// Ring memory writes before the MMIO store to QueueNotify / Status: the
// device must see the published ring when the doorbell rings.
inline void before_mmio_write() {
  mmio::fence::memory_writes_before_mmio_writes();
}

// An MMIO load (InterruptStatus) before the ring memory loads it prompts.
inline void after_mmio_read() {
  mmio::fence::mmio_reads_before_memory_reads();
}

}  // namespace starling::virtio::barrier

#endif  // STARLING_DRIVERS_VIRTIO_BARRIER_H_
