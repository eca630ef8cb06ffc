#ifndef STARLING_PLATFORM_STAR64_NIC_H_
#define STARLING_PLATFORM_STAR64_NIC_H_

#include <string_view>

#include "drivers/dwmac/dwmac.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"

// The Star64's network interface: GMAC0 (the DT's "eth0") through the DWMAC
// driver. platform/star64/gmac0.h has the constants and the
// bring-up; this is the board facade applications use (platform/nic.h).
namespace starling::board {

using Nic = dwmac::Dwmac;
// The driver's name in metrics (the nic="..." label).
inline constexpr std::string_view kNicName = "dwmac";

// Brings GMAC0 up once: clocks and resets, MAC address (bootargs
// starling.mac=, the device tree, or the default), driver init, and a link
// wait of up to 6 s (see the console). Call after init_interrupts(). Errors
// are start_gmac0's; later calls return the same device (or the same error).
Result<Nic*> nic(mem::PageAllocator& pages);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_NIC_H_
