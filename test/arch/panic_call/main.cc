// Calls panic() on purpose: //test/arch:panic_call_qemu_test checks the
// report's reason, a backtrace that starts at the caller, and the exit code.

#include "kernel/boot/app.h"
#include "kernel/panic/panic.h"

namespace {

[[gnu::noinline]] void give_up() {
  starling::panic("panic_call: giving up on purpose");
}

}  // namespace

int starling_app_main(const starling::BootInfo& /*boot*/) {
  give_up();
  return 1;  // not reached: panic() ends the run
}
