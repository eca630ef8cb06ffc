#ifndef STARLING_PLATFORM_UART_CONSOLE_H_
#define STARLING_PLATFORM_UART_CONSOLE_H_

#include <cstdint>

#include "drivers/uart/ns16550.h"

// The console half of the board facade (kernel/hal/board.h: console_write;
// kernel/hal/interrupts.h: console_irq, console_set_rx_interrupt,
// console_read) for a board whose console is a 16550-compatible UART, written
// once (uart_console.cc). The board says which UART and which interrupt
// source; everything else about the console is the same on every such board.
namespace starling::board {

// Defined by the board package (its board.cc).
Ns16550& console_uart();
std::uint32_t console_uart_irq();

}  // namespace starling::board

#endif  // STARLING_PLATFORM_UART_CONSOLE_H_
