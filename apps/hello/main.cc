// The smallest Starling application: proves boot, console and shutdown.

#include <cstdint>

#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/hal/board.h"

int starling_app_main(const starling::BootInfo& boot) {
  using namespace starling;
  // Boot tests look for the exact text "Hello from Starling".
  console::print("Hello from Starling on ");
  console::print(board::name());
  console::print("!\n");
  console::print("hart ");
  console::print_dec(static_cast<std::int64_t>(boot.hart_id));
  console::print(", dtb at ");
  console::print_hex(boot.dtb);
  console::print("\n");
  return 0;
}
