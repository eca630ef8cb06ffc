#ifndef STARLING_KERNEL_LIB_CPIO_H_
#define STARLING_KERNEL_LIB_CPIO_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

// Files in a cpio archive of the "newc" format (`cpio -o -H newc`, the
// format of Linux's initramfs): the boot files a bootloader hands the
// kernel as its initrd (docs/boot-files.md). Read-only views into the
// archive, no copies. Every header is checked against the archive's size:
// a malformed or truncated archive finds nothing past the damage.
namespace starling::cpio {

// The first regular file named `name` ("tls/cert.pem"; a leading "./" in
// the archive is ignored), or nullopt.
std::optional<std::span<const std::byte>> find_file(std::span<const std::byte> archive,
                                                    std::string_view name);

}  // namespace starling::cpio

#endif  // STARLING_KERNEL_LIB_CPIO_H_
