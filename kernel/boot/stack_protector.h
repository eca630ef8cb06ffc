#ifndef STARLING_KERNEL_BOOT_STACK_PROTECTOR_H_
#define STARLING_KERNEL_BOOT_STACK_PROTECTOR_H_

#include <string_view>

namespace starling::boot {

// Replaces the stack canary's built-in value with one from the board's
// entropy (or, in an image without an entropy source, from the cycle and
// time counters); returns where it came from, for the console. Call it from
// a function that never returns (starling_kernel_start): every protected
// frame active across the change would fail its check.
std::string_view seed_stack_protector();

}  // namespace starling::boot

#endif  // STARLING_KERNEL_BOOT_STACK_PROTECTOR_H_
