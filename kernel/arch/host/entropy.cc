// The host board's entropy: the Linux kernel's, through getrandom(2).
#include <sys/random.h>

#include <cerrno>

#include "kernel/hal/entropy.h"

namespace starling::hal {

Result<void> fill_entropy(std::span<std::byte> out) {
  // flags 0: blocks until the kernel's pool is initialised, then never
  // blocks; a read may come back short (a signal), so loop; EINTR retries.
  while (!out.empty()) {
    const ssize_t n = getrandom(out.data(), out.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unexpected(errno == ENOSYS ? Error::kUnsupported : Error::kDeviceError);
    }
    out = out.subspan(static_cast<std::size_t>(n));
  }
  return {};
}

std::string_view entropy_source() {
  return "getrandom";
}

}  // namespace starling::hal
