#ifndef STARLING_KERNEL_HAL_BOARD_H_
#define STARLING_KERNEL_HAL_BOARD_H_

#include <string_view>

// The board facade: every board package (platform/<board>/) defines these, and
// the image links exactly one such package. Only the board knows addresses.
namespace starling::board {

// Brings up what the kernel needs before anything prints (the console UART).
// `dtb` is the device-tree address from firmware; boards may ignore it.
void init(unsigned long dtb);

// Raw bytes to the console device, unchanged (no "\n" translation here: that is
// the console's job). Blocks until the bytes are handed to the hardware.
void console_write(std::string_view bytes);

// Ends the run: powers off (or, in an emulator, exits it with a status that
// reflects `code`: 0 = success). Never returns, even if firmware refuses.
[[noreturn]] void exit(int code);

// A short, stable board name for logs, e.g. "qemu-virt".
std::string_view name();

}  // namespace starling::board

#endif  // STARLING_KERNEL_HAL_BOARD_H_
