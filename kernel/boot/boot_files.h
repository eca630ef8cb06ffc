#ifndef STARLING_KERNEL_BOOT_BOOT_FILES_H_
#define STARLING_KERNEL_BOOT_BOOT_FILES_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

// Files the bootloader hands the kernel beside the image, without
// rebuilding it (docs/boot-files.md): a cpio "newc" archive loaded as the
// initrd, as Linux takes its initramfs. QEMU's `-initrd FILE` and U-Boot's
// booti (extlinux.conf's `initrd` line) load it and name it in
// /chosen/linux,initrd-start/-end; the riscv64 boot keeps its pages out of
// the page allocator and maps them read-only. The host board takes
// `--initrd=FILE`. An HTTPS server's certificate and key live there
// (tls/cert.pem, tls/key.pem).
namespace starling::boot {

// The archive, read-only; empty when the bootloader gave none. Each board
// defines it.
std::span<const std::byte> initrd();

// The regular file `name` in it ("tls/cert.pem"), or nullopt.
std::optional<std::span<const std::byte>> boot_file(std::string_view name);

}  // namespace starling::boot

#endif  // STARLING_KERNEL_BOOT_BOOT_FILES_H_
