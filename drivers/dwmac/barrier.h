#ifndef STARLING_DRIVERS_DWMAC_BARRIER_H_
#define STARLING_DRIVERS_DWMAC_BARRIER_H_

#include "drivers/mmio/fence.h"

// The fences at each CPU/DMA hand-off of the descriptor rings, named for the
// hand-off they protect (the orderings themselves: drivers/mmio/fence.h).
namespace starling::dwmac::barrier {

// Descriptor words (DES0-2) and buffer contents before the DES3 store that
// sets OWN: the DMA may fetch the descriptor the moment it sees OWN.
inline void before_own() {
  mmio::fence::memory_writes_before_memory_writes();
}

// A DES3 load that saw OWN clear before loading the written-back words and
// the buffer the DMA filled.
inline void after_own() {
  mmio::fence::memory_reads_before_memory_reads();
}

// Descriptor stores (OWN set) before the tail-pointer MMIO store that lets
// the DMA fetch them, or any other doorbell-like register write.
inline void before_mmio_write() {
  mmio::fence::memory_writes_before_mmio_writes();
}

// An MMIO load (DMA_CH0_STATUS) before the descriptor loads it prompts.
inline void after_mmio_read() {
  mmio::fence::mmio_reads_before_memory_reads();
}

// An MMIO store (interrupt enable turned back on) before re-reading the
// rings: a completion that raced with it is either seen now or interrupts.
inline void mmio_write_then_load() {
  mmio::fence::mmio_writes_before_memory_reads();
}

}  // namespace starling::dwmac::barrier

#endif  // STARLING_DRIVERS_DWMAC_BARRIER_H_
