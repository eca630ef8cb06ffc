// An interrupt enabled in sie with no handler, pending when hal::idle()
// wakes: the idle loop runs handlers itself without a trap
// (riscv::run_pending_interrupts), but one with no handler must still reach
// the trap and panic with a frame, naming it, as any stray interrupt does
// (//test/arch:stray_interrupt_qemu_test).

#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"

int starling_app_main(const starling::BootInfo& /*boot*/) {
  using namespace starling;
  console::print("stray_interrupt: raising a software interrupt with no handler\n");
  (void)hal::mask_interrupts();
  riscv::enable_interrupt(riscv::Interrupt::kSoftware);
  // sip.SSIP: S-mode may set its own software interrupt pending.
  riscv::csr_set<riscv::Csr::kSip>(1ull << 1);
  for (int i = 0; i < 3; ++i) hal::idle();
  console::print("stray_interrupt: FAIL: idle returned without the trap's panic\n");
  return 3;
}
