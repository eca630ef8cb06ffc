#ifndef STARLING_PLATFORM_HOST_BOOT_OPTIONS_H_
#define STARLING_PLATFORM_HOST_BOOT_OPTIONS_H_

#include <cstddef>
#include <span>
#include <string>

#include "kernel/hal/nic.h"

// The command line of an application running on the host board (a Linux
// process): what a riscv64 board learns from firmware and the device tree.
//
//   --tap=NAME        the TAP device that is the NIC's wire (it must exist,
//                     e.g. `ip tuntap add dev NAME mode tap`; see nic.h)
//   --mac=XX:..:XX    the NIC's MAC address (default 02:53:54:00:00:01)
//   --ip=SPEC         passed as `ip=SPEC` in /chosen/bootargs: `dhcp` or
//                     A.B.C.D/N[,gw=E.F.G.H] (net/netif/ip_config.h)
//   --bootargs=TEXT   more of the kernel command line, appended
//   --memory-mib=N    RAM for the page allocator (default 64, 4..4096)
//   --initrd=FILE     the boot files: a cpio "newc" archive, as a
//                     bootloader's initrd (kernel/boot/boot_files.h)
//   --help
namespace starling::host {

struct BootOptions {
  std::string tap;
  hal::MacAddress mac{{0x02, 0x53, 0x54, 0x00, 0x00, 0x01}};
  std::string bootargs;  // as /chosen/bootargs will hold it
  std::size_t memory_bytes = std::size_t{64} << 20;
  std::string initrd;  // a file name, or empty
  bool help = false;
};

inline constexpr std::string_view kBootUsage =
    "usage: <app> [--tap=NAME] [--mac=XX:XX:XX:XX:XX:XX] [--ip=dhcp|A.B.C.D/N[,gw=E.F.G.H]]\n"
    "             [--bootargs=TEXT] [--memory-mib=N] [--initrd=FILE] [--help]\n"
    "  Runs a Starling application as a Linux process (the host board). Its NIC is the\n"
    "  DWMAC driver over a device model whose wire is the TAP device NAME.\n";

// Parses argv[1..]. On a bad argument returns false and sets `error` to a
// line naming the argument and the fix.
bool parse_boot_options(std::span<const char* const> args, BootOptions* options,
                        std::string* error);

// "aa:bb:cc:dd:ee:ff" (hex, either case). False for anything else.
bool parse_mac(std::string_view text, hal::MacAddress* mac);

// What parse_boot_options() chose, for the board's NIC (set by main()).
const BootOptions& boot_options();
void set_boot_options(const BootOptions& options);

// --initrd=FILE read whole into memory (main(), before the app): false with
// `error` naming the file and why. initrd_bytes() is what was read (empty
// without one), the host board's boot::initrd().
bool load_initrd(const std::string& path, std::string* error);
std::span<const std::byte> initrd_bytes();

}  // namespace starling::host

#endif  // STARLING_PLATFORM_HOST_BOOT_OPTIONS_H_
