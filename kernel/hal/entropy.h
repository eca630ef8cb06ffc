#ifndef STARLING_KERNEL_HAL_ENTROPY_H_
#define STARLING_KERNEL_HAL_ENTROPY_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "kernel/lib/result.h"

// Entropy: random bytes an attacker cannot predict, from the board's own
// source, for keys (TCP initial sequence numbers, lwIP's random numbers).
// Every board package defines both functions:
//   qemu_virt  virtio-rng (`-device virtio-rng-device`, which run_qemu.sh adds)
//   star64     the JH7110's TRNG (drivers/trng), polled
//   host       getrandom(2)
// A board without a source says so through kUnsupported, and the caller
// must say so to the user (console, metrics): never a silent fallback.
namespace starling::hal {

// Fills `out` completely. kUnsupported: the board has no entropy source;
// kNotFound: it has one, but the device is absent (QEMU started without
// virtio-rng); kTimedOut / kDeviceError: the source stopped answering.
Result<void> fill_entropy(std::span<std::byte> out);

// Optional, for a board whose source answers slowly (qemu_virt: virtio-rng,
// 10 ms and more, polled): gathers the first bytes at boot, before any task
// runs, so that no task holds the hart waiting on the device; fill_entropy()
// serves them first. The kernel calls it (kernel/boot/start.cc), whose own
// definition is a weak one that does nothing: only images that use entropy
// link a source, and only they pay the wait.
void prime_entropy();

// What fill_entropy() reads from, for the console and the metrics
// ("virtio-rng", "getrandom", "none").
std::string_view entropy_source();

// For the kernel's own boot (the stack canary: kernel/boot/stack_protector.h):
// fills `out` as fill_entropy() does and returns entropy_source(), or an
// empty name when it cannot. The kernel's definition is a weak one that
// returns "" (an image that links no entropy source); each riscv64 board's
// entropy library defines the real one beside fill_entropy(), so an image
// that uses entropy gets it, and no image has an undefined symbol.
std::string_view boot_entropy(std::span<std::byte> out);

}  // namespace starling::hal

#endif  // STARLING_KERNEL_HAL_ENTROPY_H_
