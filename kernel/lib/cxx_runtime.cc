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
namespace std {
inline namespace __1 {
[[noreturn]] void __libcpp_verbose_abort(const char* format, ...) {
  // The format is printf-style with arguments we cannot format here; its
  // fixed text already names the failed check.
  starling::panic(format);
}
}  // namespace __1
}  // namespace std
