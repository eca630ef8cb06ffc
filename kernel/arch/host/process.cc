// The board facade of a Linux process: the console is stdout, exit is _exit().
#include "kernel/hal/board.h"

#include <unistd.h>

namespace starling::board {

void init(unsigned long) {}

void console_write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(STDOUT_FILENO, bytes.data(), bytes.size());
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void exit(int code) {
  _exit(code);
}

std::string_view name() {
  return "host";
}

}  // namespace starling::board
