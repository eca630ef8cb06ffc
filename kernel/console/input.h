#ifndef STARLING_KERNEL_CONSOLE_INPUT_H_
#define STARLING_KERNEL_CONSOLE_INPUT_H_

#include <cstddef>
#include <span>

#include "kernel/async/task.h"

// Console input, as coroutines: the UART's receive interrupt wakes the task
// waiting here (through the PLIC, irq::, and an InterruptSource); the task,
// not the interrupt handler, reads the bytes. One reader at a time.
namespace starling::console {

// Waits for console input and copies what has arrived (at least one byte, at
// most out.size()) into `out`. kUnsupported if the board has no interrupts.
async::Task<std::size_t> read(std::span<char> out);

// Reads one line into `out`, without its terminator (CR or LF; a CR LF pair
// counts once), echoing what is typed and handling backspace. A line longer
// than `out` is cut to fit; the rest of it is read and dropped. Returns the
// line's length.
async::Task<std::size_t> read_line(std::span<char> out);

// Receive interrupts taken by the console so far.
std::size_t receive_interrupts();

}  // namespace starling::console

#endif  // STARLING_KERNEL_CONSOLE_INPUT_H_
