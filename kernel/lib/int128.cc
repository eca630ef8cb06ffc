// The 128-bit integer helpers clang calls on RV64 for what the hardware
// has no instruction for: unsigned division and remainder (divide_u128.h
// says who needs them and how they divide). No compiler runtime is linked
// into the kernel, so without them a `/` on `unsigned __int128` fails to
// link (ld.lld: undefined symbol: __udivti3).

#include "kernel/lib/divide_u128.h"

extern "C" {

unsigned __int128 __udivti3(unsigned __int128 dividend, unsigned __int128 divisor) {
  return starling::lib::divide_u128(dividend, divisor).quotient;
}

unsigned __int128 __umodti3(unsigned __int128 dividend, unsigned __int128 divisor) {
  return starling::lib::divide_u128(dividend, divisor).remainder;
}

}  // extern "C"
