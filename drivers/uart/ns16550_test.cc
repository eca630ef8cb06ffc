// Host test: the driver runs against plain memory standing in for the register
// block. Register offsets and bit values below come from the 16550 datasheet,
// not from the driver, so a wrong constant in the driver fails here.

#include "drivers/uart/ns16550.h"

#include <gtest/gtest.h>

#include "drivers/uart/model/dw_apb_uart_model.h"

#include <array>
#include <cstdint>

namespace starling {
namespace {

constexpr unsigned kThr = 0;
constexpr unsigned kIer = 1;
constexpr unsigned kFcr = 2;
constexpr unsigned kLcr = 3;
constexpr unsigned kMcr = 4;
constexpr unsigned kLsr = 5;

constexpr unsigned kRbr = 0;

constexpr std::uint32_t kIerErbfi = 0x01;  // received data available
constexpr std::uint32_t kLsrDr = 0x01;     // data ready
constexpr std::uint32_t kLsrThre = 0x20;
constexpr std::uint32_t kLsrTemt = 0x40;

// QEMU virt layout: byte registers, one after another.
struct ByteRegisters {
  alignas(4) std::array<std::uint8_t, 8> regs;

  ByteRegisters() { regs.fill(0xAA); }
  Ns16550 uart() { return Ns16550({reinterpret_cast<std::uintptr_t>(regs.data()), 0, 1}); }
};

// JH7110 DW-APB layout: register i is the 32-bit word at 4 * i.
struct WordRegisters {
  std::array<std::uint32_t, 8> regs;

  WordRegisters() { regs.fill(0xDEADBEEF); }
  Ns16550 uart() { return Ns16550({reinterpret_cast<std::uintptr_t>(regs.data()), 2, 4}); }
};

TEST(Ns16550Test, InitProgramsByteLayout) {
  ByteRegisters dev;
  dev.regs[kLsr] = kLsrThre | kLsrTemt;
  dev.uart().init();

  EXPECT_EQ(dev.regs[kLcr], 0x03);  // 8N1, DLAB clear
  EXPECT_EQ(dev.regs[kFcr], 0x07);  // FIFO on, RX and TX cleared
  EXPECT_EQ(dev.regs[kIer], 0x00);  // interrupts off
  EXPECT_EQ(dev.regs[kThr], 0xAA);  // nothing sent, divisor low byte not written
  EXPECT_EQ(dev.regs[kMcr], 0xAA);
  EXPECT_EQ(dev.regs[kLsr], kLsrThre | kLsrTemt);
}

TEST(Ns16550Test, InitProgramsWordLayoutWithFullWidthWrites) {
  WordRegisters dev;
  dev.regs[kLsr] = kLsrThre | kLsrTemt;
  dev.uart().init();

  // A byte-wide write would leave 0xDEADBE.. in the upper bytes.
  EXPECT_EQ(dev.regs[kLcr], 0x03u);
  EXPECT_EQ(dev.regs[kFcr], 0x07u);
  EXPECT_EQ(dev.regs[kIer], 0x00u);
  EXPECT_EQ(dev.regs[kThr], 0xDEADBEEFu);
  EXPECT_EQ(dev.regs[kMcr], 0xDEADBEEFu);
}

TEST(Ns16550Test, WordLayoutTouchesOnlyRegisterWords) {
  // With reg_shift 2 and 8-bit accesses, register i is the low byte at 4 * i.
  alignas(4) std::array<std::uint8_t, 32> bytes;
  bytes.fill(0xAA);
  bytes[kLsr * 4] = kLsrThre | kLsrTemt;
  Ns16550 uart({reinterpret_cast<std::uintptr_t>(bytes.data()), 2, 1});
  uart.init();

  EXPECT_EQ(bytes[kLcr * 4], 0x03);
  EXPECT_EQ(bytes[kFcr * 4], 0x07);
  EXPECT_EQ(bytes[kIer * 4], 0x00);
  for (unsigned i = 0; i < bytes.size(); ++i) {
    if (i % 4 != 0) {
      EXPECT_EQ(bytes[i], 0xAA) << "byte " << i;
    }
  }
}

TEST(Ns16550Test, PutWritesThrWhenThreIsSet) {
  WordRegisters dev;
  dev.regs[kLsr] = kLsrThre;  // room in the FIFO, transmitter still busy
  EXPECT_TRUE(dev.uart().put('x'));
  EXPECT_EQ(dev.regs[kThr], static_cast<std::uint32_t>('x'));
}

TEST(Ns16550Test, PutLeavesThrAloneWhenThreIsClear) {
  ByteRegisters dev;
  dev.regs[kLsr] = kLsrTemt;  // idle bit alone, no THRE
  EXPECT_FALSE(dev.uart().put('x'));
  EXPECT_EQ(dev.regs[kThr], 0xAA);
}

TEST(Ns16550Test, WriteSendsBytesUnchanged) {
  ByteRegisters dev;
  dev.regs[kLsr] = kLsrThre;
  Ns16550 uart = dev.uart();

  // "\n" stays one byte: adding "\r" is the console's job, not the driver's.
  EXPECT_EQ(uart.write("\n"), 1u);
  EXPECT_EQ(dev.regs[kThr], '\n');
  EXPECT_EQ(uart.write("a\nb"), 3u);
  EXPECT_EQ(dev.regs[kThr], 'b');
  EXPECT_EQ(uart.write(""), 0u);
}

TEST(Ns16550Test, WriteStopsWhenTransmitterIsStuck) {
  ByteRegisters dev;
  dev.regs[kLsr] = 0;
  EXPECT_EQ(dev.uart().write("abc"), 0u);
  EXPECT_EQ(dev.regs[kThr], 0xAA);
}

TEST(Ns16550Test, FlushWaitsForTemt) {
  ByteRegisters dev;
  dev.regs[kLsr] = kLsrThre;
  EXPECT_FALSE(dev.uart().flush());
  dev.regs[kLsr] = kLsrThre | kLsrTemt;
  EXPECT_TRUE(dev.uart().flush());
}

TEST(Ns16550Test, SetBaudProgramsDivisorAndRestoresLcr) {
  WordRegisters dev;
  dev.regs[kLsr] = kLsrThre | kLsrTemt;
  dev.regs[kLcr] = 0x03;
  // JH7110 UART0: 24 MHz input, 24e6 / (16 * 115200) = 13.02 -> 13.
  EXPECT_TRUE(dev.uart().set_baud(24'000'000, 115'200));
  EXPECT_EQ(dev.regs[0], 13u);       // DLL (shares index 0 with THR)
  EXPECT_EQ(dev.regs[1], 0u);        // DLM (shares index 1 with IER)
  EXPECT_EQ(dev.regs[kLcr], 0x03u);  // DLAB cleared again
}

TEST(Ns16550Test, SetBaudRejectsImpossibleRates) {
  WordRegisters dev;
  dev.regs[kLsr] = kLsrThre | kLsrTemt;
  EXPECT_FALSE(dev.uart().set_baud(24'000'000, 0));
  EXPECT_FALSE(dev.uart().set_baud(1'000, 115'200));     // divisor rounds to 0
  EXPECT_FALSE(dev.uart().set_baud(4'000'000'000u, 1));  // divisor > 0xFFFF
  EXPECT_EQ(dev.regs[0], 0xDEADBEEFu);
  EXPECT_EQ(dev.regs[kLcr], 0xDEADBEEFu);
}

TEST(Ns16550Test, RxInterruptSetsOnlyErbfiWithFullWidthWrite) {
  WordRegisters dev;
  Ns16550 uart = dev.uart();
  uart.set_rx_interrupt(true);
  EXPECT_EQ(dev.regs[kIer], kIerErbfi);
  uart.set_rx_interrupt(false);
  EXPECT_EQ(dev.regs[kIer], 0u);
}

TEST(Ns16550Test, RxInterruptByteLayout) {
  ByteRegisters dev;
  dev.uart().set_rx_interrupt(true);
  EXPECT_EQ(dev.regs[kIer], kIerErbfi);
  EXPECT_EQ(dev.regs[kLcr], 0xAA);  // no DLAB games
}

TEST(Ns16550Test, ReceiveReadsNothingWithoutDataReady) {
  ByteRegisters dev;
  dev.regs[kLsr] = kLsrThre | kLsrTemt;  // transmitter bits only
  dev.regs[kRbr] = 'x';
  std::array<char, 4> out{};
  EXPECT_EQ(dev.uart().receive(out), 0u);
}

TEST(Ns16550Test, ReceiveReadsRbrWhileDataReadyUpToTheBuffer) {
  WordRegisters dev;
  dev.regs[kLsr] = kLsrDr | kLsrThre;
  dev.regs[kRbr] = 0xFFFFFF00u | 'k';  // only the low byte is data
  std::array<char, 3> out{};
  // Plain memory keeps DR set, so the buffer's size is what stops the loop.
  EXPECT_EQ(dev.uart().receive(out), 3u);
  EXPECT_EQ(out[0], 'k');
  EXPECT_EQ(out[2], 'k');
  EXPECT_EQ(dev.uart().receive(std::span<char>()), 0u);
}

}  // namespace
}  // namespace starling

// The JH7110's DesignWare APB UART (drivers/uart/model): an LCR write while
// it is busy is ignored and latches busy detect, an interrupt IER cannot
// mask and only a USR read clears.
namespace starling {
namespace {

Ns16550 dw_uart(model::DwApbUartModel& model, bool designware) {
  return Ns16550({.base = 0x1000'0000,
                  .reg_shift = 2,
                  .reg_io_width = 4,
                  .designware = designware,
                  .model = &model});
}

// What the console's RX task does: an interrupt comes, it reads, and the
// interrupt must be gone. Returns the wake-ups it took for `bytes` received
// bytes, up to `limit` (reaching it: wedged).
int wake_ups_until_quiet(Ns16550& uart, model::DwApbUartModel& model, int limit) {
  int wake_ups = 0;
  char buffer[16];
  while (model.interrupt_line() && wake_ups < limit) {
    ++wake_ups;
    (void)uart.receive(buffer);
  }
  return wake_ups;
}

// A 16550 driver that knows nothing of busy detect: the LCR write at init
// finds a byte still arriving, is ignored and latches busy detect; the RX
// interrupt then never goes away. This is the wedge the DesignWare code
// below exists for.
TEST(DwApbUartTest, ADriverThatNeverReadsUsrWedges) {
  model::DwApbUartModel model;
  Ns16550 uart = dw_uart(model, /*designware=*/false);
  model.set_busy_for(1);
  uart.init();
  EXPECT_NE(model.lcr(), 0x03u);  // 8N1 never took
  uart.set_rx_interrupt(true);
  EXPECT_TRUE(model.interrupt_line());
  EXPECT_EQ(wake_ups_until_quiet(uart, model, 1000), 1000);  // wedged
  EXPECT_EQ(model.counters().usr_reads, 0u);
}

TEST(DwApbUartTest, TheDesignWareDriverRetriesLcrAndClearsBusyDetect) {
  model::DwApbUartModel model;
  Ns16550 uart = dw_uart(model, /*designware=*/true);
  model.set_busy_for(3);  // three tries meet a busy UART
  uart.init();
  EXPECT_EQ(model.lcr(), 0x03u);  // 8N1 took on the fourth write
  EXPECT_EQ(model.counters().lcr_writes_refused, 3u);
  EXPECT_FALSE(model.busy_detect_latched());
  EXPECT_EQ(uart.stats().busy_detects, 3u);
  EXPECT_EQ(uart.stats().lcr_write_failures, 0u);
  uart.set_rx_interrupt(true);
  EXPECT_FALSE(model.interrupt_line());
  // A byte arrives: one wake-up reads it and the line drops.
  model.receive('a');
  char buffer[4];
  ASSERT_TRUE(model.interrupt_line());
  EXPECT_EQ(uart.receive(buffer), 1u);
  EXPECT_EQ(buffer[0], 'a');
  EXPECT_FALSE(model.interrupt_line());
}

// Busy detect latched by someone else's LCR write (firmware, a baud change
// racing a received byte): the interrupt it raises is cleared by the next
// receive(), the one the console's interrupt runs.
TEST(DwApbUartTest, ALatchedBusyDetectIsClearedByTheInterruptsRead) {
  model::DwApbUartModel model;
  Ns16550 uart = dw_uart(model, /*designware=*/true);
  uart.init();
  uart.set_rx_interrupt(true);
  model.set_busy_for(1);
  model.write32(0x0C, 0x1B);  // an LCR write while busy: refused, latched
  ASSERT_TRUE(model.busy_detect_latched());
  EXPECT_EQ(wake_ups_until_quiet(uart, model, 1000), 1);
  EXPECT_FALSE(model.interrupt_line());
  EXPECT_EQ(model.lcr(), 0x03u);
}

// A UART that never stops being busy: the LCR write gives up after
// kLcrTries, counted, instead of spinning for ever.
TEST(DwApbUartTest, AUartBusyForEverEndsTheLcrRetries) {
  model::DwApbUartModel model;
  Ns16550 uart = dw_uart(model, /*designware=*/true);
  model.set_busy_for(5000);
  uart.init();
  EXPECT_EQ(uart.stats().lcr_write_failures, 1u);
  EXPECT_EQ(model.counters().lcr_writes_refused, Ns16550::kLcrTries);
}

// QEMU's ns16550a path is unchanged: no IIR or USR read, ever.
TEST(DwApbUartTest, The16550PathReadsNeitherIirNorUsr) {
  model::DwApbUartModel model;
  Ns16550 uart = dw_uart(model, /*designware=*/false);
  uart.init();
  uart.set_rx_interrupt(true);
  model.receive('x');
  char buffer[4];
  EXPECT_EQ(uart.receive(buffer), 1u);
  EXPECT_TRUE(uart.set_baud(24'000'000, 115'200));
  EXPECT_EQ(model.counters().usr_reads, 0u);
  EXPECT_EQ(model.counters().iir_reads, 0u);
}

}  // namespace
}  // namespace starling
