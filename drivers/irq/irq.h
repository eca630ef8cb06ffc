#ifndef STARLING_DRIVERS_IRQ_IRQ_H_
#define STARLING_DRIVERS_IRQ_IRQ_H_

#include <cstdint>

#include "drivers/irq/plic.h"
#include "kernel/lib/result.h"

// Device interrupts by PLIC source number: who handles which source.
//
// Delivery is one-shot: when a source's interrupt arrives, dispatch() calls
// its handler, completes it at the PLIC and leaves the source masked. The
// handler only marks something ready (e.g. signals the driver's
// InterruptSource); the driver's task drains the device and calls unmask()
// to take the next interrupt. So a level-triggered device that stays asserted
// cannot storm the hart, and handlers never need to touch the PLIC.
namespace starling::irq {

using Handler = void (*)(void* context);

// The controller the board set up (Plic::init done). Forgets every handler.
void init(const Plic& plic);

// Installs `handler` for `source`, at `priority` (>= 1), and unmasks it.
// Errors: kUnsupported before init(); kInvalidArgument for a source the PLIC
// lacks, a null handler or priority 0; kBusy if the source has a handler.
Result<void> attach(std::uint32_t source, Handler handler, void* context,
                    std::uint32_t priority = 1);

// Masks `source` and forgets its handler.
void detach(std::uint32_t source);

// Stop / resume delivering `source`. Safe from tasks and from handlers.
void mask(std::uint32_t source);
void unmask(std::uint32_t source);

// The external-interrupt trap: claims one source, runs its handler, completes
// and masks it. Returns the source (0 if the PLIC had nothing, which happens:
// another context may have claimed it). A claimed source with no handler is
// counted in spurious_count() and stays masked.
std::uint32_t dispatch();

std::uint64_t spurious_count();

// Interrupts delivered to `source`'s handler since it was attached.
std::uint64_t delivered_count(std::uint32_t source);

}  // namespace starling::irq

#endif  // STARLING_DRIVERS_IRQ_IRQ_H_
