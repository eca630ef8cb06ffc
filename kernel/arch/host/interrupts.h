#ifndef STARLING_KERNEL_ARCH_HOST_INTERRUPTS_H_
#define STARLING_KERNEL_ARCH_HOST_INTERRUPTS_H_

#include <cstdint>

#include "kernel/async/interrupt_source.h"
#include "kernel/lib/result.h"

// The host board's interrupt controller. On the host, "wfi" is a blocking
// ppoll() (hal::idle) on the watched file descriptors, a wake-up eventfd and
// the timeout to hal::set_wakeup's deadline. A watched fd becoming readable
// (or hung up) is its interrupt: idle() signals the source, like a trap
// handler would. Level-triggered, and masked while its source is pending: the
// waiting task must drain the fd before it waits again.
namespace starling::host {

inline constexpr int kMaxWatchedFds = 16;

// `source` is signalled whenever `fd` is readable. kBusy if fd is already
// watched, kNoMemory if kMaxWatchedFds are. The source must outlive the watch.
Result<void> watch_fd(int fd, async::InterruptSource& source) noexcept;
// kNotFound if fd is not watched.
Result<void> unwatch_fd(int fd) noexcept;

// Signals `source` from another thread (a simulated device) and wakes the
// executor's ppoll(). Use this, not InterruptSource::signal(), from outside
// the executor's thread: signal() alone would not end a sleep.
void raise_interrupt(async::InterruptSource& source) noexcept;

// For tests: the deadline last given to hal::set_wakeup, how many times
// hal::idle() ran, and whether interrupts are masked now.
std::uint64_t wakeup_deadline() noexcept;
std::uint64_t idle_calls() noexcept;
bool interrupts_masked() noexcept;

}  // namespace starling::host

#endif  // STARLING_KERNEL_ARCH_HOST_INTERRUPTS_H_
