#ifndef STARLING_DRIVERS_UART_MODEL_DW_APB_UART_MODEL_H_
#define STARLING_DRIVERS_UART_MODEL_DW_APB_UART_MODEL_H_

#include <cstdint>
#include <deque>

#include "drivers/mmio/register_bus.h"

// A register model of the Synopsys DesignWare APB UART as the JH7110 has it
// (32-bit registers 4 bytes apart, 16550-compatible with the DesignWare
// extras), for the console driver's host tests. Its offsets and bits are
// its own, written from the 16550 register layout and the DesignWare UART
// facts below, not from the driver.
//
// What makes it a DesignWare UART and not a 16550 (the DW_apb_uart
// databook's "busy functionality", as Linux's 8250_dw handles it):
// - LCR cannot be written while the UART is busy (USR.BUSY, bit 0: a
//   character in the shift registers, either way). Such a write is ignored
//   and latches the "busy detect indication" interrupt: IIR reads IID 0111.
// - Only a read of the UART status register (USR, offset 0x7C) clears it.
// - IER has no enable bit for it: while latched the interrupt line is high
//   whatever IER says. A driver that never reads USR keeps taking the same
//   interrupt for ever.
// Linux's 8250_dw reads USR when IIR shows busy detect (dw8250_handle_irq)
// and, after an LCR write that did not take, clears the FIFOs, reads RBR
// and retries (dw8250_check_lcr, dw8250_force_idle).
//
// Modelled besides: RBR and an RX FIFO of bytes the test pushes, THR (a
// written byte is sent at once and counted), IER.ERBFI, FCR's FIFO clears,
// LSR (DR, THRE, TEMT), the divisor latch behind LCR.DLAB. Busy is what
// the test says: set_busy_for(n) keeps the UART busy for the next n LCR
// writes (a character still in the shifter takes that long to leave).
namespace starling::model {

class DwApbUartModel final : public mmio::RegisterBus {
 public:
  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;

  void set_busy_for(unsigned lcr_writes) { busy_lcr_writes_ = lcr_writes; }
  void receive(std::uint8_t byte) { rx_.push_back(byte); }
  // The interrupt line to the PLIC (level).
  bool interrupt_line() const;

  std::uint32_t lcr() const { return lcr_; }
  bool busy_detect_latched() const { return busy_detect_; }
  struct Counters {
    std::uint64_t lcr_writes_refused = 0;  // ignored while busy (each latched busy detect)
    std::uint64_t usr_reads = 0, iir_reads = 0, bytes_sent = 0;
  };
  const Counters& counters() const { return counters_; }

 private:
  bool busy() const { return busy_lcr_writes_ > 0; }

  std::deque<std::uint8_t> rx_;
  std::uint32_t ier_ = 0, lcr_ = 0, mcr_ = 0, dll_ = 0, dlm_ = 0;
  bool fifos_ = false;
  bool busy_detect_ = false;
  unsigned busy_lcr_writes_ = 0;
  Counters counters_;
};

}  // namespace starling::model

#endif  // STARLING_DRIVERS_UART_MODEL_DW_APB_UART_MODEL_H_
