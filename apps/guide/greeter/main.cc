// The first example of docs/writing-an-app.md, which shows this file whole
// (test/lint/doc_snippets.py keeps the copy exact): asks for a name on the console,
// waits 100 ms, greets. No network.
#include <string_view>

#include "kernel/async/executor.h"
#include "kernel/async/sleep.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/console/input.h"

namespace {
starling::async::Task<int> greet() {
  char name[32];
  starling::console::print("name? ");
  auto n = co_await starling::console::read_line(name);  // sleeps until the UART interrupt
  if (!n.ok()) co_return 1;
  co_await starling::async::sleep_for(100 * starling::async::kMillisecond);
  starling::console::print("hello, ");
  starling::console::print(std::string_view(name, *n));
  starling::console::print("\n");
  co_return 0;
}
}  // namespace

int starling_app_main(const starling::BootInfo&) {
  starling::async::Executor executor;
  auto code = executor.block_on(greet());
  return code.ok() ? *code : 1;
}
