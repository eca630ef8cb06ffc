#include "kernel/console/input.h"

#include <cstdint>

#include "kernel/async/interrupt_source.h"
#include "kernel/console/console.h"
#include "kernel/console/line_editor.h"
#include "kernel/hal/interrupts.h"
#include "kernel/hal/irq.h"

namespace starling::console {
namespace {

constinit async::InterruptSource* rx_source = nullptr;
constinit bool attached = false;

// Trap context: mark the source ready, nothing else (irq:: leaves the PLIC
// source masked until the reader has drained the UART).
void on_receive_interrupt(void* source) {
  static_cast<async::InterruptSource*>(source)->signal();
}

Result<void> attach_once() {
  if (attached) return {};
  // Constructed on first use: the source must outlive every reader.
  static async::InterruptSource source;
  rx_source = &source;
  if (auto ok = irq::attach(board::console_irq(), &on_receive_interrupt, rx_source); !ok.ok()) {
    return ok;
  }
  board::console_set_rx_interrupt(true);
  attached = true;
  return {};
}

}  // namespace

async::Task<std::size_t> read(std::span<char> out) {
  if (out.empty()) co_return std::size_t{0};
  if (auto ok = attach_once(); !ok.ok()) co_return Unexpected(ok.error());
  for (;;) {
    // Drain first: bytes may have arrived before anyone waited.
    if (const std::size_t n = board::console_read(out); n != 0) co_return n;
    irq::unmask(board::console_irq());
    co_await rx_source->wait();
  }
}

async::Task<std::size_t> read_line(std::span<char> out) {
  // Bytes read past the end of the previous line (input typed ahead, or a
  // test feeding several lines at once) wait here for the next call, and the
  // editor keeps the CR LF state across lines.
  static char buffer[64];
  static std::size_t next = 0;
  static std::size_t end = 0;
  static LineEditor editor;
  editor.begin(out);
  for (;;) {
    if (next == end) {
      auto got = co_await read(buffer);
      if (!got.ok()) co_return Unexpected(got.error());
      next = 0;
      end = *got;
    }
    while (next < end) {
      const char c = buffer[next++];
      switch (editor.feed(c)) {
        case LineEditor::Event::kIgnored:
          break;
        case LineEditor::Event::kAppended:
          print(std::string_view(&c, 1));
          break;
        case LineEditor::Event::kErased:
          print("\b \b");
          break;
        case LineEditor::Event::kLineDone:
          print("\n");
          co_return editor.length();
      }
    }
  }
}

std::size_t receive_interrupts() {
  return rx_source == nullptr
             ? 0
             : static_cast<std::size_t>(irq::delivered_count(board::console_irq()));
}

}  // namespace starling::console
