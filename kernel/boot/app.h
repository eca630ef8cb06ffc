#ifndef STARLING_KERNEL_BOOT_APP_H_
#define STARLING_KERNEL_BOOT_APP_H_

namespace starling {

// What the firmware handed the kernel, passed on to the application.
struct BootInfo {
  unsigned long hart_id;  // a0 at entry: the hart OpenSBI/U-Boot started us on
  unsigned long dtb;      // a1 at entry: physical address of the flattened device tree
};

}  // namespace starling

// Every image links exactly one application, which defines this. The kernel
// calls it once the board is up and passes its return value to board::exit():
// 0 means success, anything else a failure code.
int starling_app_main(const starling::BootInfo& boot);

#endif  // STARLING_KERNEL_BOOT_APP_H_
