// An application that fails on purpose: the boot tests check that its exit
// code (42) reaches the shell that started QEMU.

#include "kernel/boot/app.h"
#include "kernel/console/console.h"

int starling_app_main(const starling::BootInfo& /*boot*/) {
  starling::console::print("exit_code: returning 42\n");
  return 42;
}
