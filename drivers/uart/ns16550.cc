#include "drivers/uart/ns16550.h"

namespace starling {
namespace {

constexpr std::uint32_t kLcr8N1 = 0x03;   // 8 data bits, no parity, 1 stop bit
constexpr std::uint32_t kLcrDlab = 0x80;  // divisor latch access

constexpr std::uint32_t kFcrEnable = 0x01;
constexpr std::uint32_t kFcrClearRx = 0x02;
constexpr std::uint32_t kFcrClearTx = 0x04;

constexpr std::uint32_t kIerRxAvailable = 0x01;  // ERBFI: received data available

constexpr std::uint32_t kIirIdMask = 0x0F;
constexpr std::uint32_t kIirBusyDetect = 0x07;  // DesignWare: LCR written while busy

constexpr std::uint32_t kLsrDataReady = 0x01;  // DR: a byte waits in RBR / the RX FIFO
constexpr std::uint32_t kLsrThre = 0x20;       // transmit holding register (or FIFO) has room
constexpr std::uint32_t kLsrTemt = 0x40;       // transmitter idle: FIFO and shift register empty

// Upper bound on LSR polls. A byte takes ~87 us at 115200 baud and a 32-byte
// FIFO drains in ~3 ms; a million MMIO reads is far longer than that on any of
// our boards, yet still ends a wait on a dead or absent UART.
constexpr unsigned kSpinLimit = 1'000'000;

}  // namespace

std::uint32_t Ns16550::read(Reg reg) const {
  const auto offset = static_cast<std::uint32_t>(static_cast<unsigned>(reg) << config_.reg_shift);
  // The DW-APB UART on the JH7110 only answers full 32-bit accesses.
  return config_.reg_io_width == 4 ? regs_.read(offset) : regs_.read8(offset);
}

void Ns16550::write_reg(Reg reg, std::uint32_t value) const {
  const auto offset = static_cast<std::uint32_t>(static_cast<unsigned>(reg) << config_.reg_shift);
  if (config_.reg_io_width == 4) {
    regs_.write(offset, value);
  } else {
    regs_.write8(offset, static_cast<std::uint8_t>(value));
  }
}

bool Ns16550::wait_lsr(std::uint32_t mask) const {
  for (unsigned i = 0; i < kSpinLimit; ++i) {
    if ((read(Reg::kLsr) & mask) == mask) {
      return true;
    }
  }
  return false;
}

bool Ns16550::flush() {
  return wait_lsr(kLsrThre | kLsrTemt);
}

void Ns16550::init() {
  // Let the firmware's last line finish first: clearing the TX FIFO below would
  // cut it off, and the DW-APB UART ignores LCR writes while it is busy.
  flush();
  // LCR first: with DLAB clear, index 1 is IER rather than the divisor's high byte.
  write_lcr(kLcr8N1);
  write_reg(Reg::kIer, 0);  // polled until the PLIC driver takes interrupts
  write_reg(Reg::kFcr, kFcrEnable | kFcrClearRx | kFcrClearTx);
}

bool Ns16550::set_baud(std::uint32_t clock_hz, std::uint32_t baud) {
  if (baud == 0) {
    return false;
  }
  // The UART samples at 16x the baud rate; round to the nearest divisor.
  const std::uint64_t divisor =
      (static_cast<std::uint64_t>(clock_hz) + 8ull * baud) / (16ull * baud);
  if (divisor == 0 || divisor > 0xFFFF) {
    return false;
  }
  flush();  // a divisor change mid-byte garbles it, and DW-APB ignores LCR while busy
  const std::uint32_t lcr = read(Reg::kLcr) & ~kLcrDlab;
  write_lcr(lcr | kLcrDlab);
  write_reg(Reg::kDll, static_cast<std::uint32_t>(divisor & 0xFF));
  write_reg(Reg::kDlm, static_cast<std::uint32_t>(divisor >> 8));
  write_lcr(lcr);
  return true;
}

// A 16550 takes an LCR write as it comes. A DesignWare UART ignores one
// while busy (a character in its shift registers, either way: a flush
// cannot stop a byte arriving) and latches busy detect instead, so as
// Linux's dw8250_check_lcr does: read it back, and until it took, clear the
// FIFOs and RBR (dw8250_force_idle) and write again; USR is read each time
// to clear the busy detect the refused write latched.
void Ns16550::write_lcr(std::uint32_t value) {
  write_reg(Reg::kLcr, value);
  if (!config_.designware) return;
  for (unsigned tries = 1;; ++tries) {
    if ((read(Reg::kLcr) & 0xFF) == (value & 0xFF)) return;
    (void)read(Reg::kUsr);
    ++stats_.busy_detects;
    if (tries == kLcrTries) {
      ++stats_.lcr_write_failures;
      return;
    }
    write_reg(Reg::kFcr, kFcrEnable | kFcrClearRx | kFcrClearTx);
    (void)read(Reg::kRbr);
    write_reg(Reg::kLcr, value);
  }
}

void Ns16550::set_rx_interrupt(bool enabled) {
  // IER shares index 1 with DLM: LCR.DLAB is clear outside set_baud().
  write_reg(Reg::kIer, enabled ? kIerRxAvailable : 0);
}

std::size_t Ns16550::receive(std::span<char> out) {
  // Busy detect holds the interrupt line high until USR is read (8250_dw's
  // dw8250_handle_irq): whoever took the interrupt would otherwise take it
  // again at once, for ever.
  if (config_.designware && (read(Reg::kIir) & kIirIdMask) == kIirBusyDetect) {
    (void)read(Reg::kUsr);
    ++stats_.busy_detects;
  }
  std::size_t count = 0;
  while (count < out.size() && (read(Reg::kLsr) & kLsrDataReady) != 0) {
    out[count++] = static_cast<char>(read(Reg::kRbr) & 0xFF);
  }
  return count;
}

bool Ns16550::put(char c) {
  if (!wait_lsr(kLsrThre)) {
    return false;
  }
  write_reg(Reg::kThr, static_cast<std::uint8_t>(c));
  return true;
}

std::size_t Ns16550::write(std::string_view bytes) {
  std::size_t written = 0;
  for (const char c : bytes) {
    if (!put(c)) {
      break;
    }
    ++written;
  }
  return written;
}

}  // namespace starling
