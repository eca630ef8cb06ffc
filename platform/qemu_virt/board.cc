// Board package for QEMU 7.2 `virt` (docs/hardware/qemu-virt.md).

#include <cstdint>

#include "drivers/irq/external_interrupts.h"
#include "drivers/irq/plic.h"
#include "drivers/mmio/register_bus.h"
#include "drivers/uart/ns16550.h"
#include "kernel/arch/riscv/clock.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/sbi.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/console/console.h"
#include "kernel/hal/board.h"
#include "kernel/hal/devices.h"
#include "kernel/hal/interrupts.h"
#include "platform/qemu_virt/virtio_mmio.h"
#include "platform/uart_console.h"

namespace starling::board {
namespace {

// ns16550a, byte-wide registers packed one after another.
constinit Ns16550 uart({.base = 0x1000'0000, .reg_shift = 0, .reg_io_width = 1});
constexpr std::uint32_t kUartIrq = 10;

// sifive_test finisher: a 32-bit write of (status << 16) | 0x3333 makes QEMU
// exit with that status (QEMU 7.2 calls exit() directly).
constexpr std::uintptr_t kSifiveTestBase = 0x10'0000;
constexpr std::uint32_t kFinisherFail = 0x3333;

// DTB /cpus/timebase-frequency = 0x989680.
constexpr std::uint64_t kTimebaseHz = 10'000'000;

// PLIC: riscv,ndev = 95. Contexts come in M/S pairs per hart (interrupts-
// extended = <M 11>, <S 9> for each), so hart h's S-mode context is 2h + 1.
constexpr std::uintptr_t kPlicBase = 0x0C00'0000;
constexpr std::uint32_t kPlicSources = 95;
constinit Plic plic({.base = kPlicBase, .context = 1, .num_sources = kPlicSources});

// What the drivers touch, for the page tables (kernel/hal/devices.h): the
// PLIC's priorities, pending and enable bits and the contexts' threshold
// and claim registers all lie in its first 4 MiB (contexts at 0x200000 +
// 0x1000 * context; hart 0's S-mode is context 1).
constexpr DeviceRegion kDevices[] = {
    {.base = kSifiveTestBase, .size = 0x1000, .name = "sifive_test (exit)"},
    {.base = kPlicBase, .size = 0x40'0000, .name = "plic"},
    {.base = 0x1000'0000, .size = 0x1000, .name = "uart (ns16550a)"},
    {.base = kVirtioMmioBase, .size = kVirtioMmioStride * kVirtioMmioSlots, .name = "virtio-mmio"},
};

}  // namespace

std::span<const DeviceRegion> device_regions() {
  return kDevices;
}

void init(unsigned long /*dtb: the map above is fixed for this machine*/) {
  // Traps first: a fault anywhere after this line panics with a report.
  riscv::trap_init();
  riscv::clock_init(kTimebaseHz);
  uart.init();
}

Result<void> init_interrupts(unsigned long boot_hart_id) {
  plic = Plic({.base = kPlicBase,
               .context = 2 * static_cast<std::uint32_t>(boot_hart_id) + 1,
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
  return "qemu-virt";
}

[[noreturn]] void exit(int code) {
  // Measured on QEMU 7.2.22 with its bundled OpenSBI v1.1, booted directly and
  // through U-Boot's booti: SRST shutdown exits QEMU with status 0 whatever the
  // reason (system-failure included), so SRST cannot report a failure. A write
  // to the finisher exits with the status it carries (3 -> $? = 3), so
  // non-zero codes go there first; SRST stays as the fallback.
  if (code != 0) {
    // The host sees only the low 8 bits of an exit status: keep a failure a
    // failure even when code is a multiple of 256.
    const std::uint32_t status = (code & 0xFF) != 0 ? static_cast<std::uint32_t>(code & 0xFF) : 1;
    mmio::Registers(kSifiveTestBase).write(0, (status << 16) | kFinisherFail);
  }
  sbi::shutdown(code == 0 ? sbi::ResetReason::kNone : sbi::ResetReason::kSystemFailure);
  console::print("Starling: shutdown failed, halting\n");
  riscv::halt();
}

}  // namespace starling::board
