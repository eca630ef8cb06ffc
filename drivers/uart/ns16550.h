#ifndef STARLING_DRIVERS_UART_NS16550_H_
#define STARLING_DRIVERS_UART_NS16550_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "drivers/mmio/register_bus.h"

namespace starling {

// Driver for 16550-compatible UARTs: QEMU's ns16550a and the Synopsys DW-APB
// UART ("snps,dw-apb-uart", 8250-compatible) on the JH7110. The two differ
// only in register layout, which the board passes in. Transmit is polled;
// receive is polled or interrupt-driven (RX data-available through the PLIC).
class Ns16550 {
 public:
  struct Config {
    std::uintptr_t base;    // physical address of register 0
    unsigned reg_shift;     // register i lives at base + (i << reg_shift)
    unsigned reg_io_width;  // bytes per access: 1 (8-bit) or 4 (32-bit)
  };

  constexpr explicit Ns16550(const Config& config) : config_(config), regs_(config.base) {}

  // 8N1, FIFOs on and cleared, interrupts off. Leaves the baud divisor alone:
  // firmware (OpenSBI, U-Boot) already set it for the board's clock.
  void init();

  // Reprograms the divisor for `baud` given the UART input clock. Returns false
  // (and changes nothing) if the divisor would not fit in 16 bits or be 0.
  bool set_baud(std::uint32_t clock_hz, std::uint32_t baud);

  // Sends one byte, waiting (bounded) for room in the transmitter. Returns
  // false, dropping the byte, if the UART never becomes ready.
  bool put(char c);

  // Sends `bytes` exactly as given (no "\n" translation). Stops at the first
  // byte put() drops. Returns how many bytes were written to the transmitter.
  std::size_t write(std::string_view bytes);

  // Waits (bounded) until the transmitter is completely empty, so that bytes
  // already written reach the wire before a reset or power-off.
  bool flush();

  // Turns the "received data available" interrupt (IER.ERBFI) on or off; the
  // other interrupt causes stay off. With the FIFO's trigger level at 1 byte
  // (init()), every received byte raises the line until RBR is drained.
  void set_rx_interrupt(bool enabled);

  // Reads received bytes into `out` while LSR.DR says one is waiting, up to
  // out.size(); never waits. Reading RBR empty is what lowers the RX interrupt.
  std::size_t receive(std::span<char> out);

 private:
  // Register indices (16550 datasheet); DLL/DLM share 0/1 with RBR/THR/IER and
  // are selected by LCR.DLAB.
  enum class Reg : unsigned {
    kThr = 0,  // write: transmit holding
    kRbr = 0,  // read: receive buffer
    kDll = 0,  // DLAB=1: divisor latch low
    kIer = 1,  // interrupt enable
    kDlm = 1,  // DLAB=1: divisor latch high
    kFcr = 2,  // write: FIFO control; read: IIR
    kLcr = 3,  // line control
    kMcr = 4,  // modem control
    kLsr = 5,  // line status
  };

  std::uint32_t read(Reg reg) const;
  void write_reg(Reg reg, std::uint32_t value) const;
  bool wait_lsr(std::uint32_t mask) const;

  Config config_;
  mmio::Registers regs_;
};

}  // namespace starling

#endif  // STARLING_DRIVERS_UART_NS16550_H_
