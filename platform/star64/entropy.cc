// The Star64's entropy: none yet. The JH7110 has a TRNG (rng@1600c000 in
// Linux's jh7110.dtsi), but Starling does not drive it, so this board says
// so instead of pretending: callers print it on the console and in the
// metrics.
#include "platform/hal/entropy.h"

namespace starling::hal {

Result<void> fill_entropy(std::span<std::byte>) {
  return Unexpected(Error::kUnsupported);
}

std::string_view entropy_source() {
  return "none";
}

}  // namespace starling::hal
