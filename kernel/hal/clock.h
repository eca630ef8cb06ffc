#ifndef STARLING_KERNEL_HAL_CLOCK_H_
#define STARLING_KERNEL_HAL_CLOCK_H_

#include <cstdint>
#include <limits>

// Time, wake-ups and sleeping: what the coroutine executor (kernel/async)
// needs from a board. Every board package defines these: riscv64 boards with
// the `time` CSR, an SBI/Sstc timer and `wfi`; the host board with
// clock_gettime and poll().
namespace starling::hal {

// No deadline: set_wakeup(kNoDeadline) cancels the pending wake-up.
inline constexpr std::uint64_t kNoDeadline = std::numeric_limits<std::uint64_t>::max();

// Monotonic time since boot, in nanoseconds.
std::uint64_t now_ns();

// A free-running cycle counter (rdcycle, or the host's best equivalent), for
// the utilisation figures: idle cycles vs total cycles.
std::uint64_t cycles();

// Instructions retired since reset (riscv64: the `instret` CSR), for the cost
// of a packet in the benchmarks (bench/echo). QEMU 7.2 answers instret (and
// cycle) with the host's TSC unless started with -icount, where it is
// virtual time: instructions at shift=0 plus the time skipped in wfi. The
// host board returns 0: it has no cheap per-process counter, and callgrind
// measures it instead.
std::uint64_t instructions();

// Arms the one-shot timer to interrupt at `deadline_ns` (monotonic, as
// now_ns()), replacing any earlier deadline. A deadline in the past fires as
// soon as possible. kNoDeadline disarms it.
void set_wakeup(std::uint64_t deadline_ns);

// The executor calls this when nothing is runnable, with interrupts masked.
// It sleeps until an interrupt is pending (a device, or the wake-up timer),
// lets the interrupt handlers run (they only acknowledge, mask and signal an
// InterruptSource), and returns with interrupts masked again. It may return
// early for no reason; the executor loops. Returns the cycles (cycles())
// spent asleep: the wait itself, not the handlers, which are work (the
// executor's idle_cycles(), and so every busy figure, count them as busy).
std::uint64_t idle();

// Interrupt masking around the executor's own bookkeeping. Nestable: returns
// the previous state for restore_interrupts().
bool mask_interrupts();
void restore_interrupts(bool were_enabled);

}  // namespace starling::hal

#endif  // STARLING_KERNEL_HAL_CLOCK_H_
