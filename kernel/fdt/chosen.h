#ifndef STARLING_KERNEL_FDT_CHOSEN_H_
#define STARLING_KERNEL_FDT_CHOSEN_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernel/fdt/device_tree.h"
#include "kernel/lib/result.h"

namespace starling::fdt {

// What the bootloader chose for us (/chosen, §3.6). Views into the blob: they
// live as long as the blob does.
struct Chosen {
  std::optional<std::string_view> bootargs;     // the kernel command line
  std::optional<std::string_view> stdout_path;  // "/soc/serial@10000000"
  // The initrd the bootloader loaded (linux,initrd-start/-end: QEMU's
  // -initrd, U-Boot's booti): [start, end), both present and start < end,
  // else nullopt. The kernel's boot files (docs/boot-files.md).
  struct Range {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
  };
  std::optional<Range> initrd;
};

// Reads /chosen. A tree without /chosen, or a /chosen without these
// properties, gives empty fields; a property that is not a proper string
// gives kMalformed.
Result<Chosen> read_chosen(const DeviceTree& tree);

// The kernel command line of the firmware's tree at `blob` (at most
// kMaxFirmwareTreeBytes): "" without one, or when the tree or its /chosen
// is unreadable (the board's boot reports a broken tree already).
std::string_view firmware_bootargs(const void* blob);

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_CHOSEN_H_
