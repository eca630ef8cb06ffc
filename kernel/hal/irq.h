#ifndef STARLING_KERNEL_HAL_IRQ_H_
#define STARLING_KERNEL_HAL_IRQ_H_

#include <cstdint>

#include "kernel/lib/result.h"

// Device interrupts by source number: who handles which source. The kernel
// and drivers attach handlers through this interface; the board links its
// implementation (the PLIC registry, drivers/irq) and sets it up.
//
// Delivery is one-shot: when a source's interrupt arrives, its handler runs
// and the source is left claimed (on the PLIC: its gateway closed, no
// further delivery). The handler only marks something ready (e.g. signals
// the driver's InterruptSource); the driver's task drains the device and
// calls unmask() to take the next interrupt (on the PLIC: the completion).
// So a level-triggered device that stays asserted cannot storm the hart,
// handlers never touch the controller, and an interrupt costs the
// controller two accesses (claim and complete).
namespace starling::irq {

using Handler = void (*)(void* context);

// Installs `handler` for `source`, at `priority` (>= 1), and unmasks it.
// Errors: kUnsupported before the board set the controller up;
// kInvalidArgument for a source the controller lacks, a null handler or
// priority 0; kBusy if the source has a handler.
Result<void> attach(std::uint32_t source, Handler handler, void* context,
                    std::uint32_t priority = 1);

// Masks `source` and forgets its handler.
void detach(std::uint32_t source);

// Stop / resume delivering `source`: mask() disables it; unmask() enables
// it again if masked and completes it if delivered (cheap otherwise, so a
// driver calls it before every sleep). Safe from tasks and from handlers.
void mask(std::uint32_t source);
void unmask(std::uint32_t source);

// Claimed sources that had no handler (they stay masked).
std::uint64_t spurious_count();

// Interrupts delivered to `source`'s handler since it was attached.
std::uint64_t delivered_count(std::uint32_t source);

}  // namespace starling::irq

#endif  // STARLING_KERNEL_HAL_IRQ_H_
