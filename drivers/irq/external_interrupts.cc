#include "drivers/irq/external_interrupts.h"

#include "drivers/irq/irq.h"
#include "kernel/arch/riscv/trap.h"

namespace starling::irq {
namespace {

void on_external_interrupt(void* /*unused*/) {
  dispatch();
}

}  // namespace

void start_external_interrupts(Plic& plic) {
  plic.init();
  init(plic);
  riscv::set_interrupt_handler(riscv::Interrupt::kExternal, &on_external_interrupt, nullptr);
  riscv::enable_interrupt(riscv::Interrupt::kExternal);
}

}  // namespace starling::irq
