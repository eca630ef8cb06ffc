// Host test: the driver runs against plain memory standing in for the register
// block. Register offsets and bit values below come from the 16550 datasheet,
// not from the driver, so a wrong constant in the driver fails here.

#include "drivers/uart/ns16550.h"

#include <gtest/gtest.h>

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
