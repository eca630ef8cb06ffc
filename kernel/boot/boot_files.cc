#include "kernel/boot/boot_files.h"

#include "kernel/lib/cpio.h"

namespace starling::boot {

std::optional<std::span<const std::byte>> boot_file(std::string_view name) {
  return cpio::find_file(initrd(), name);
}

}  // namespace starling::boot
