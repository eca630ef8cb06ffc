// Executes an illegal instruction on purpose: //test/arch:panic_qemu_test
// checks the panic report (cause, registers, backtrace) and the exit code.

#include "kernel/boot/app.h"
#include "kernel/console/console.h"

namespace {

// noinline and not a leaf, so it has a frame of its own: the backtrace must
// show this function at #0 and starling_app_main among the callers.
[[gnu::noinline]] void execute_illegal_instruction() {
  starling::console::print("panic_test: executing an illegal instruction\n");
  // `unimp`: the spec's canonical illegal instruction.
  asm volatile("unimp" : : : "memory");
  starling::console::print("panic_test: FAIL: the illegal instruction returned\n");
}

}  // namespace

int starling_app_main(const starling::BootInfo& /*boot*/) {
  execute_illegal_instruction();
  starling::console::print("panic_test: FAIL: still running after the trap\n");
  return 3;
}
