#ifndef STARLING_PLATFORM_STAR64_BOOT_DTB_H_
#define STARLING_PLATFORM_STAR64_BOOT_DTB_H_

// The device tree U-Boot passed (a1 at entry), kept by board::init() for the
// board's devices that need it after boot: GMAC0's MAC address and the
// kernel command line (board::nic() has only the page allocator to go on).
namespace starling::board {

void set_boot_dtb(unsigned long dtb);
// 0 before board::init().
unsigned long boot_dtb();

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_BOOT_DTB_H_
