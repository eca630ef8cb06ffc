#ifndef STARLING_KERNEL_HAL_INTERRUPTS_H_
#define STARLING_KERNEL_HAL_INTERRUPTS_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/lib/result.h"

// Device interrupts and console input: what a board adds to board.h once
// interrupts exist. Traps and the clock are set up by board::init() already;
// these route the interrupt controller to a hart and expose the console UART's
// receive side. Handlers are attached with irq::attach (drivers/irq).
namespace starling::board {

// Programs the interrupt controller (PLIC) for the S-mode context of
// `boot_hart_id` (BootInfo::hart_id), hands it to irq::, and enables external
// interrupts in sie. Device interrupts are taken only in hal::idle() (with
// the busy tick on, tasks run with sstatus.SIE open and only the timer live:
// kernel/hal/busy_tick.h).
// kUnsupported if that hart has no S-mode context (the JH7110's S7 hart 0).
Result<void> init_interrupts(unsigned long boot_hart_id);

// The console UART's interrupt source number, for irq::attach.
std::uint32_t console_irq();

// The console UART's "received data available" interrupt on or off.
void console_set_rx_interrupt(bool enabled);

// Bytes the console UART has received, up to out.size(); never waits.
std::size_t console_read(std::span<char> out);

}  // namespace starling::board

#endif  // STARLING_KERNEL_HAL_INTERRUPTS_H_
