#ifndef STARLING_DRIVERS_UART_NS16550_H_
#define STARLING_DRIVERS_UART_NS16550_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "drivers/mmio/register_bus.h"

namespace starling {

// Driver for 16550-compatible UARTs: QEMU's ns16550a and the Synopsys DW-APB
// UART ("snps,dw-apb-uart", 8250-compatible) on the JH7110. They differ in
// register layout, which the board passes in, and in the DesignWare UART's
// busy detect (Config::designware): an LCR write while the UART is busy is
// ignored and latches an interrupt (IIR = busy detect) that IER cannot mask
// and only a read of USR clears. As Linux's 8250_dw does, the driver reads
// USR when IIR shows it (receive(), which the console's RX interrupt runs)
// and retries an LCR write that did not take after clearing the FIFOs.
// Transmit is polled; receive is polled or interrupt-driven (RX
// data-available through the PLIC).
class Ns16550 {
 public:
  struct Config {
    std::uintptr_t base;                 // physical address of register 0
    unsigned reg_shift;                  // register i lives at base + (i << reg_shift)
    unsigned reg_io_width;               // bytes per access: 1 (8-bit) or 4 (32-bit)
    bool designware = false;             // a DW-APB UART: USR and busy detect
    mmio::RegisterBus* model = nullptr;  // host tests: a register model
  };

  // LCR writes tried before giving up on a UART that stays busy (Linux's
  // dw8250_check_lcr tries 1000 times).
  static constexpr unsigned kLcrTries = 1000;

  constexpr explicit Ns16550(const Config& config)
      : config_(config), regs_(config.base, config.model) {}

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
  // out.size(); never waits. Reading RBR empty is what lowers the RX
  // interrupt. On a DesignWare UART it first clears a latched busy detect
  // (IIR 0111) by reading USR, or its interrupt would never end.
  std::size_t receive(std::span<char> out);

  // DesignWare busy detects cleared, and LCR writes that never took
  // (kLcrTries refused in a row).
  struct Stats {
    std::uint32_t busy_detects = 0, lcr_write_failures = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  // Register indices (16550 datasheet); DLL/DLM share 0/1 with RBR/THR/IER and
  // are selected by LCR.DLAB.
  enum class Reg : unsigned {
    kThr = 0,   // write: transmit holding
    kRbr = 0,   // read: receive buffer
    kDll = 0,   // DLAB=1: divisor latch low
    kIer = 1,   // interrupt enable
    kDlm = 1,   // DLAB=1: divisor latch high
    kFcr = 2,   // write: FIFO control; read: IIR
    kLcr = 3,   // line control
    kMcr = 4,   // modem control
    kLsr = 5,   // line status
    kIir = 2,   // read: interrupt identification
    kUsr = 31,  // DesignWare: UART status (offset 0x7C at reg_shift 2)
  };

  std::uint32_t read(Reg reg) const;
  void write_reg(Reg reg, std::uint32_t value) const;
  // LCR, and on a DesignWare UART until it reads back as written.
  void write_lcr(std::uint32_t value);
  bool wait_lsr(std::uint32_t mask) const;

  Config config_;
  mmio::Registers regs_;
  Stats stats_;
};

}  // namespace starling

#endif  // STARLING_DRIVERS_UART_NS16550_H_
