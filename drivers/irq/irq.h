#ifndef STARLING_DRIVERS_IRQ_IRQ_H_
#define STARLING_DRIVERS_IRQ_IRQ_H_

#include <cstdint>

#include "drivers/irq/plic.h"
#include "kernel/hal/irq.h"
#include "kernel/lib/result.h"

// The PLIC behind the kernel's interrupt interface (kernel/hal/irq.h): a
// table of handlers by source number, claimed and completed at the PLIC.
// Boards call init() once the PLIC is set up and route the hart's
// external-interrupt trap to dispatch().
namespace starling::irq {

// The controller the board set up (Plic::init done). Forgets every handler.
void init(const Plic& plic);

// The external-interrupt trap: claims one source and runs its handler; the
// source stays claimed (its PLIC gateway closed: not delivered again) until
// the driver's unmask() completes it. Returns the source (0 if the PLIC had
// nothing, which happens: another context may have claimed it). A claimed
// source with no handler is counted in spurious_count() and never completed.
std::uint32_t dispatch();

}  // namespace starling::irq

#endif  // STARLING_DRIVERS_IRQ_IRQ_H_
