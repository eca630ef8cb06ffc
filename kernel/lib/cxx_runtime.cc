// The few C++ ABI hooks a freestanding kernel must supply itself: nothing
// else provides them (no libc, no libc++abi is linked).

#include <cstdarg>

#include "kernel/panic/panic.h"

extern "C" {

// Registers destructors of static objects to run at exit. A kernel does not
// exit through the C++ runtime (board::exit powers off), so they never run:
// record nothing and report success.
int __cxa_atexit(void (*)(void*), void*, void*) {
  return 0;
}

// The address that identifies this "shared object" to __cxa_atexit.
void* __dso_handle = nullptr;

// A call through a pure virtual function: an object used during its own
// construction or destruction.
[[noreturn]] void __cxa_pure_virtual() {
  starling::panic("pure virtual function called");
}

}  // extern "C"

// libc++'s assertion and "this cannot happen" path (hardening checks,
// std::string_view::at, std::optional::value on an empty optional...).
// libc++ 20 and later declare it noexcept (the exception specification is
// part of the type, so the definition must match whichever pinned libc++
// is in use: 19 or 22, toolchain/pins.bzl).
#if _LIBCPP_VERSION >= 200000
#define STARLING_VERBOSE_ABORT_NOEXCEPT noexcept
#else
#define STARLING_VERBOSE_ABORT_NOEXCEPT
#endif
namespace std {
inline namespace __1 {
[[noreturn]] void __libcpp_verbose_abort(const char* format, ...) STARLING_VERBOSE_ABORT_NOEXCEPT {
  // The format is printf-style with arguments we cannot format here; its
  // fixed text already names the failed check.
  starling::panic(format);
}
}  // namespace __1
}  // namespace std
