#ifndef STARLING_PLATFORM_HOST_NIC_H_
#define STARLING_PLATFORM_HOST_NIC_H_

#include <cstdint>
#include <string_view>

#include "drivers/dwmac/dwmac.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"

// The host board's network interface: the Star64's NIC driver (DWMAC,
// drivers/dwmac) over the register-accurate device model of the MAC
// (drivers/dwmac/model), whose wire is a Linux TAP device (--tap=NAME). So an
// application on the host board exercises the same driver, descriptor rings
// and interrupts as on the board, and Linux's own tools (socat, iperf, ping)
// talk to it through the TAP.
//
// The model reaches memory only inside a region mapped below 4 GiB (32-bit
// descriptor address fields), so the NIC takes its DMA pages from its own
// allocator over that region, not from the application's page allocator.
// Frames the TAP delivers are fed to the model by a task nic() spawns on the
// current executor, woken by host::watch_fd().
namespace starling::board {

using Nic = dwmac::Dwmac;
// The driver's name in metrics (the nic="..." label).
inline constexpr std::string_view kNicName = "dwmac-model";

// Brings the NIC up once (TAP, model, driver init, link); later calls return
// the same NIC or the same error. kNotFound if no --tap was given; the
// TAP's and the driver's errors otherwise, each explained on the console.
Result<Nic*> nic(mem::PageAllocator& pages);

// Frames moved between the TAP and the model, for tests and benchmarks.
struct WireStats {
  std::uint64_t to_model = 0;       // frames read from the TAP
  std::uint64_t model_refused = 0;  // frames the model dropped (FIFO full, filtered, off)
  std::uint64_t from_model = 0;     // frames written to the TAP
  std::uint64_t tap_write_errors = 0;
};
const WireStats& wire_stats();

}  // namespace starling::board

#endif  // STARLING_PLATFORM_HOST_NIC_H_
