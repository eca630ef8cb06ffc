// Board package for the Pine64 Star64 (StarFive JH7110; docs/hardware/jh7110.md).

#include <cstdint>

#include "drivers/irq/external_interrupts.h"
#include "drivers/irq/plic.h"
#include "drivers/uart/ns16550.h"
#include "kernel/arch/riscv/clock.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/console/console.h"
#include "kernel/hal/board.h"
#include "kernel/hal/devices.h"
#include "kernel/hal/interrupts.h"
#include "platform/star64/boot_dtb.h"
#include "platform/star64/jh7110_map.h"
#include "platform/uart_console.h"

namespace starling::board {
namespace {

// UART0 is a DW-APB UART: reg-shift 2, and it answers only 32-bit accesses.
// U-Boot leaves it clocked, out of reset and at 115200 baud from its 24 MHz
// clock, so init() does not touch the divisor.
// The JH7110's UART0 is a DesignWare APB UART (snps,dw-apb-uart): busy detect.
constinit Ns16550 uart(
    {.base = jh7110::kUart0Base, .reg_shift = 2, .reg_io_width = 4, .designware = true});
constexpr std::uint32_t kUartIrq = 32;

// DT /cpus/timebase-frequency (also U-Boot's RISCV_SMODE_TIMER_FREQ). The U74
// has no `time` CSR in hardware: OpenSBI emulates rdtime from the CLINT's
// mtime, so now_ns() costs a trap into M-mode here.
constexpr std::uint64_t kTimebaseHz = 4'000'000;

// PLIC: riscv,ndev = 136. Context 0 is hart 0 (the S7 monitor core, M-mode
// only); harts 1-4 (U74) have M/S pairs 1/2, 3/4, 5/6, 7/8: S-mode = 2h.
constexpr std::uintptr_t kPlicBase = jh7110::kPlicBase;
constexpr std::uint32_t kPlicSources = 136;
constexpr unsigned long kFirstHartWithSMode = 1;
constexpr unsigned long kLastHart = 4;
constinit Plic plic({.base = kPlicBase, .context = 2, .num_sources = kPlicSources});

// What the drivers touch, for the page tables (kernel/hal/devices.h).
constexpr DeviceRegion kDevices[] = {
    {.base = jh7110::kPlicBase, .size = jh7110::kPlicMappedBytes, .name = "plic"},
    {.base = jh7110::kUart0Base, .size = jh7110::kUart0Bytes, .name = "uart0"},
    {.base = jh7110::kStgCrgBase, .size = jh7110::kStgCrgBytes, .name = "stgcrg (TRNG clocks)"},
    {.base = jh7110::kSysCrgBase, .size = jh7110::kSysCrgBytes, .name = "syscrg"},
    {.base = jh7110::kTrngBase, .size = jh7110::kTrngBytes, .name = "trng"},
    {.base = jh7110::kGmac0Base, .size = jh7110::kGmac0Bytes, .name = "gmac0"},
    {.base = jh7110::kAonCrgBase, .size = jh7110::kAonCrgBytes, .name = "aoncrg"},
    {.base = jh7110::kAonSysconBase, .size = jh7110::kAonSysconBytes, .name = "aon_syscon"},
};

}  // namespace

std::span<const DeviceRegion> device_regions() {
  return kDevices;
}

void init(unsigned long dtb) {
  // Traps first: a fault anywhere after this line panics with a report.
  riscv::trap_init();
  // The map above is fixed; the DT is read later for GMAC0's MAC address.
  set_boot_dtb(dtb);
  riscv::clock_init(kTimebaseHz);
  uart.init();
}

Result<void> init_interrupts(unsigned long boot_hart_id) {
  if (boot_hart_id < kFirstHartWithSMode || boot_hart_id > kLastHart) {
    return Unexpected(Error::kUnsupported);
  }
  plic = Plic({.base = kPlicBase,
               .context = 2 * static_cast<std::uint32_t>(boot_hart_id),
               .num_sources = kPlicSources});
  irq::start_external_interrupts(plic);
  return {};
}

Ns16550& console_uart() {
  return uart;
}

std::uint32_t console_uart_irq() {
  return kUartIrq;
}

std::string_view name() {
  return "star64";
}

[[noreturn]] void exit(int code) {
  // No sifive_test finisher on real hardware: SBI SRST is the only way out.
  // Drain the UART first: a reset would cut off the bytes still in its FIFO.
  uart.flush();
  sbi::shutdown(code == 0 ? sbi::ResetReason::kNone : sbi::ResetReason::kSystemFailure);
  console::print("Starling: shutdown failed, halting\n");
  riscv::halt();
}

}  // namespace starling::board
