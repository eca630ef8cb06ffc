// The host board's boot: a Linux main() that does what the riscv64 entry
// (kernel/boot/start.cc) does with what firmware hands it. The command line
// (boot_options.h) stands in for firmware: it becomes a device tree whose
// /chosen/bootargs the application reads as on any board, so application
// source does not know it runs as a process.
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/fdt/tree_writer.h"
#include "kernel/hal/board.h"
#include "platform/host/boot_options.h"

namespace {

// Built once, lives as long as the process: BootInfo::dtb points into it.
std::vector<std::byte> device_tree(const starling::host::BootOptions& options) {
  return starling::fdt::TreeWriter()
      .begin_node("")
      .property_cells("#address-cells", {2})
      .property_cells("#size-cells", {2})
      .property_string("compatible", "starling,host")
      .begin_node("chosen")
      .property_string("bootargs", options.bootargs)
      .end_node()
      .end_node()
      .finish();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace starling;
  host::BootOptions options;
  std::string error;
  const std::span<const char* const> args(argv + 1, static_cast<std::size_t>(argc - 1));
  if (!host::parse_boot_options(args, &options, &error)) {
    std::fprintf(stderr, "%s: %s\n%.*s", argv[0], error.c_str(),
                 static_cast<int>(host::kBootUsage.size()), host::kBootUsage.data());
    return 2;
  }
  if (options.help) {
    std::fwrite(host::kBootUsage.data(), 1, host::kBootUsage.size(), stdout);
    return 0;
  }
  host::set_boot_options(options);
  if (!options.initrd.empty() && !host::load_initrd(options.initrd, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  static const std::vector<std::byte> tree = device_tree(options);
  const unsigned long dtb = reinterpret_cast<unsigned long>(tree.data());

  board::init(dtb);
  console::print("Starling: booted on ");
  console::print(board::name());
  console::print(" (a Linux process)\n");
  if (auto memory = boot::init_memory(dtb); memory.ok()) {
    console::print("Starling: memory: ");
    console::print_dec(static_cast<std::int64_t>(memory->free_bytes >> 10));
    console::print(" KiB for pages (coroutine frames ");
    console::print_dec(static_cast<std::int64_t>(memory->frame_arena_bytes >> 10));
    console::print(" KiB)\n");
  } else {
    console::print("Starling: FAIL memory: ");
    console::print(error_name(memory.error()));
    console::print("\n");
    return 1;
  }
  const int code = starling_app_main(BootInfo{0, dtb});
  console::print("Starling: application exited with ");
  console::print_dec(code);
  console::print("\n");
  board::exit(code);
}
