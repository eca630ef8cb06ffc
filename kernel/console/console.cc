#include "kernel/console/console.h"

#include "kernel/text/writer.h"

#include <array>
#include <cstddef>

#include "kernel/hal/board.h"

namespace starling::console {
namespace {

// For at_line_start(): a print in progress (an interrupt can come in the
// middle of one), and whether the last byte out ended a line.
constinit int g_printing = 0;
constinit bool g_mid_line = false;

// Marks a print as in progress while it lives.
class Printing {
 public:
  Printing() { ++g_printing; }
  ~Printing() { --g_printing; }
  Printing(const Printing&) = delete;
  Printing& operator=(const Printing&) = delete;
};

}  // namespace

bool at_line_start() {
  return g_printing == 0 && !g_mid_line;
}

void print(std::string_view text) {
  const Printing printing;
  // Hand the board whole runs between newlines instead of one byte at a time.
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      continue;
    }
    board::console_write(std::string_view(text.data() + run_start, i - run_start));
    board::console_write("\r\n");
    run_start = i + 1;
  }
  board::console_write(std::string_view(text.data() + run_start, text.size() - run_start));
  if (!text.empty()) g_mid_line = text.back() != '\n';
}

void print_hex(std::uint64_t value) {
  const Printing printing;
  g_mid_line = true;
  text::Line<2 + 16> line;  // "0x" + 16 nibbles of a 64-bit value
  line.put("0x");
  line.put_hex(value);
  board::console_write(line.view());
}

void print_dec(std::int64_t value) {
  const Printing printing;
  g_mid_line = true;
  text::Line<1 + 20> line;  // sign + the 20 digits of 2^64 - 1
  line.put_signed(value);
  board::console_write(line.view());
}

void format_ignoring(text::TextWriter& out, std::string_view who,
                     std::initializer_list<std::string_view> what, std::string_view then) {
  out.put(who);
  out.put(": ignoring ");
  for (const std::string_view piece : what) out.put(piece);
  if (!then.empty()) {
    out.put("; ");
    out.put(then);
  }
}

void print_ignoring(std::string_view who, std::initializer_list<std::string_view> what,
                    std::string_view then) {
  // Built whole and printed in one write, so a report from an interrupt
  // cannot land in the middle. The longest today (star64's starling.mac=
  // with its fix) is about 120 characters.
  text::Line<256> line;
  format_ignoring(line, who, what, then);
  line.put('\n');
  print(line.view());
  // What did not fit (the newline with it) was dropped: say so, and still
  // end the line.
  if (line.overflowed()) print(" [cut]\n");
}

}  // namespace starling::console
