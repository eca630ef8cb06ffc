#include "platform/uart_console.h"

#include <cstddef>
#include <span>
#include <string_view>

#include "kernel/hal/board.h"
#include "kernel/hal/interrupts.h"

namespace starling::board {

std::uint32_t console_irq() {
  return console_uart_irq();
}

void console_set_rx_interrupt(bool enabled) {
  console_uart().set_rx_interrupt(enabled);
}

std::size_t console_read(std::span<char> out) {
  return console_uart().receive(out);
}

void console_write(std::string_view bytes) {
  console_uart().write(bytes);
}

}  // namespace starling::board
