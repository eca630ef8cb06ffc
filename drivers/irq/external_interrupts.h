#ifndef STARLING_DRIVERS_IRQ_EXTERNAL_INTERRUPTS_H_
#define STARLING_DRIVERS_IRQ_EXTERNAL_INTERRUPTS_H_

#include "drivers/irq/plic.h"

// Joins the PLIC to the hart: what every riscv64 board's init_interrupts()
// does once it knows its PLIC context.
namespace starling::irq {

// Resets `plic`'s context (every source masked, threshold 0), hands it to
// irq:: (attach/dispatch), makes the supervisor external interrupt trap run
// irq::dispatch(), and enables that interrupt in sie. sstatus.SIE stays as it
// was: only hal::idle() opens it. `plic` must outlive the kernel.
void start_external_interrupts(Plic& plic);

}  // namespace starling::irq

#endif  // STARLING_DRIVERS_IRQ_EXTERNAL_INTERRUPTS_H_
