// The console monitor: a command line on the serial port, served by a
// coroutine that sleeps until the UART's receive interrupt wakes it. It shows
// the runtime at work: uptime from the timer, memory from the allocators,
// interrupt counts, and the executor's idle vs total cycles.

#include <cstdint>
#include <string_view>

#include "apps/monitor/command.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/async/executor.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/console/input.h"
#include "kernel/hal/board.h"
#include "kernel/hal/clock.h"
#include "kernel/hal/interrupts.h"
#include "kernel/hal/irq.h"
#include "kernel/mem/kernel_heap.h"

namespace starling {
namespace {

using console::print;
using console::print_dec;

void print_u(std::uint64_t value) {
  print_dec(static_cast<std::int64_t>(value));
}

void print_uptime() {
  const std::uint64_t ns = hal::now_ns();
  print("uptime: ");
  print_u(ns / 1'000'000'000);
  print(".");
  const std::uint64_t ms = ns / 1'000'000 % 1000;
  if (ms < 100) print("0");
  if (ms < 10) print("0");
  print_u(ms);
  print(" s\n");
}

void print_memory() {
  const auto& pages = boot::page_allocator().stats();
  print("mem: pages total ");
  print_u(pages.total_pages);
  print(" free ");
  print_u(pages.free_pages);
  print(" high-water ");
  print_u(pages.high_water_pages);
  print(" failed ");
  print_u(pages.failed_allocations);
  print("\n");
  const auto& heap = mem::kernel_heap().stats();
  print("mem: heap bytes ");
  print_u(heap.region_bytes);
  print(" in use ");
  print_u(heap.bytes_in_use);
  print(" high-water ");
  print_u(heap.high_water_bytes);
  print(" failed ");
  print_u(heap.failed_allocations);
  print("\n");
  if (const auto* frames = boot::frame_allocator()) {
    print("mem: frames arena ");
    print_u(frames->arena_bytes());
    print(" in use ");
    print_u(frames->frames_in_use());
    print(" (");
    print_u(frames->bytes_in_use());
    print(" bytes) peak ");
    print_u(frames->peak_bytes_in_use());
    print("\n");
  }
}

void print_interrupts() {
  print("irq: timer ");
  print_u(riscv::interrupt_count(riscv::Interrupt::kTimer));
  print(" external ");
  print_u(riscv::interrupt_count(riscv::Interrupt::kExternal));
  print(" uart(");
  print_u(board::console_irq());
  print(") ");
  print_u(console::receive_interrupts());
  print(" spurious ");
  print_u(irq::spurious_count());
  print("\n");
}

void print_utilisation(const async::Executor& executor) {
  const std::uint64_t total = executor.total_cycles();
  const std::uint64_t idle = executor.idle_cycles();
  print("cpu: idle cycles ");
  print_u(idle);
  print(" of ");
  print_u(total);
  print(" (");
  print_u(total == 0 ? 0 : idle * 100 / total);
  print("% idle)\n");
}

void print_help() {
  print(
      "commands:\n"
      "  uptime       time since boot\n"
      "  mem          page allocator, heap and coroutine frame usage\n"
      "  irq          interrupts taken (timer, external, console UART, spurious)\n"
      "  cpu          idle vs total cycles of the executor\n"
      "  sleep MS     sleep MS milliseconds on the timer, then report how long it took\n"
      "  exit [CODE]  shut down, with exit code CODE (default 0)\n");
}

async::Task<int> run_monitor(async::Executor& executor) {
  print("monitor: ready; type help\n");
  char line[80];
  for (;;) {
    print("> ");
    auto length = co_await console::read_line(line);
    if (!length.ok()) {
      print("monitor: console input failed: ");
      print(error_name(length.error()));
      print("\n");
      co_return 1;
    }
    const auto [command, argument] = monitor::split(std::string_view(line, *length));
    if (command.empty()) continue;
    if (command == "help") {
      print_help();
    } else if (command == "uptime") {
      print_uptime();
    } else if (command == "mem") {
      print_memory();
    } else if (command == "irq") {
      print_interrupts();
    } else if (command == "cpu") {
      print_utilisation(executor);
    } else if (command == "sleep") {
      const std::int64_t ms = monitor::parse_number(argument);
      if (ms < 0 || ms > 60'000) {
        print("sleep: give milliseconds, 0 to 60000\n");
        continue;
      }
      const std::uint64_t start = hal::now_ns();
      co_await async::sleep_for(static_cast<std::uint64_t>(ms) * async::kMillisecond);
      print("slept ");
      print_u((hal::now_ns() - start) / 1000);
      print(" us\n");
    } else if (command == "exit") {
      const std::int64_t code = argument.empty() ? 0 : monitor::parse_number(argument);
      if (code < 0 || code > 255) {
        print("exit: give a code from 0 to 255\n");
        continue;
      }
      print("monitor: bye\n");
      co_return static_cast<int>(code);
    } else {
      print("unknown command '");
      print(command);
      print("': try help\n");
    }
  }
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& /*boot*/) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::run_monitor(executor));
  return code.ok() ? *code : 1;
}
