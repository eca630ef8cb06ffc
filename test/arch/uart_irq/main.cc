// Interrupt-driven console input through the PLIC: the test types "starling\n"
// into QEMU's serial port once it sees "uart_irq: ready"; each interrupt must
// be claimed as the board's UART source, and the driver must read the bytes.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "drivers/irq/irq.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "kernel/hal/interrupts.h"

namespace {

using namespace starling;

constexpr std::uint64_t kGiveUpAfterNs = 20'000'000'000;  // the test feeds us within seconds

struct Observed {
  volatile unsigned external_traps = 0;
  volatile std::uint32_t last_claimed = 0;
  volatile unsigned wrong_source = 0;
  volatile unsigned empty_claims = 0;
  volatile bool uart_ready = false;
};
constinit Observed observed;

// What a driver's handler does: note that the device is ready, nothing more.
// The registry leaves the source masked until the driver unmasks it.
void on_uart_interrupt(void* context) {
  static_cast<Observed*>(context)->uart_ready = true;
}

// Stands in for the board's external-interrupt handler to see which source
// each claim returns; the dispatching itself is the real irq::dispatch().
void on_external_interrupt(void* /*unused*/) {
  const std::uint32_t source = irq::dispatch();
  observed.external_traps = observed.external_traps + 1;
  if (source == 0) {
    // The PLIC spec allows a claim to find nothing: the level that raised
    // SEIP can drop before the claim (QEMU's PLIC tracks the UART's level).
    // Seen once under heavy host load; counted, not an error.
    observed.empty_claims = observed.empty_claims + 1;
    return;
  }
  observed.last_claimed = source;
  if (source != board::console_irq()) {
    observed.wrong_source = observed.wrong_source + 1;
  }
}

void print_line(std::string_view a, std::uint64_t n, std::string_view b = "") {
  console::print(a);
  console::print_dec(static_cast<std::int64_t>(n));
  console::print(b);
  console::print("\n");
}

}  // namespace

int starling_app_main(const BootInfo& boot) {
  if (!board::init_interrupts(boot.hart_id).ok()) {
    console::print("uart_irq: FAIL: init_interrupts\n");
    return 1;
  }
  riscv::set_interrupt_handler(riscv::Interrupt::kExternal, &on_external_interrupt, nullptr);
  const std::uint32_t source = board::console_irq();
  if (!irq::attach(source, &on_uart_interrupt, &observed).ok()) {
    console::print("uart_irq: FAIL: attach\n");
    return 1;
  }
  board::console_set_rx_interrupt(true);
  // A wake-up as the overall bound, so a lost interrupt fails instead of hanging.
  const std::uint64_t give_up = hal::now_ns() + kGiveUpAfterNs;
  hal::set_wakeup(give_up);
  print_line("uart_irq: ready, console source ", source);

  std::array<char, 64> line{};
  std::size_t length = 0;
  unsigned interrupts = 0;
  bool newline = false;
  while (!newline && length < line.size()) {
    hal::idle();
    if (hal::now_ns() >= give_up) {
      print_line("uart_irq: FAIL: timed out with bytes: ", length);
      return 1;
    }
    if (!observed.uart_ready) {
      continue;
    }
    observed.uart_ready = false;
    ++interrupts;
    std::array<char, 16> chunk{};
    const std::size_t n = board::console_read(chunk);
    for (std::size_t i = 0; i < n && length < line.size(); ++i) {
      if (chunk[i] == '\n' || chunk[i] == '\r') {
        newline = true;
        break;
      }
      line[length++] = chunk[i];
    }
    irq::unmask(source);  // drained: take the next interrupt
  }
  hal::set_wakeup(hal::kNoDeadline);
  board::console_set_rx_interrupt(false);

  print_line("uart_irq: claimed source ", observed.last_claimed);
  print_line("uart_irq: external traps ", observed.external_traps);
  print_line("uart_irq: claims that found nothing pending ", observed.empty_claims);
  print_line("uart_irq: handler wake-ups ", interrupts);
  console::print("uart_irq: received '");
  console::print(std::string_view(line.data(), length));
  console::print("'\n");
  const bool ok = newline && observed.wrong_source == 0 && irq::spurious_count() == 0 &&
                  std::string_view(line.data(), length) == "starling";
  console::print(ok ? "uart_irq: PASS\n" : "uart_irq: FAIL\n");
  return ok ? 0 : 1;
}
