// The Star64's entropy: the JH7110's TRNG (drivers/trng), its clocks and
// reset brought up by the board first (jh7110_clocks.h), probed on first use.
// Verified against a register model and the facts in
// docs/hardware/jh7110-trng.md, not on a board.
#include "kernel/hal/entropy.h"
#include "drivers/trng/jh7110_trng.h"
#include "platform/star64/jh7110_clocks.h"

namespace starling::hal {
namespace {

constinit bool probed = false;
constinit bool usable = false;
constinit Error probe_error = Error::kNotFound;

trng::Jh7110Trng& device() {
  static trng::Jh7110Trng trng;
  return trng;
}

}  // namespace

Result<void> fill_entropy(std::span<std::byte> out) {
  if (!probed) {
    probed = true;
    auto ok = board::jh7110::trng_bring_up();
    if (ok.ok()) ok = device().init(mmio::Registers{board::jh7110::kTrngBase});
    usable = ok.ok();
    if (!ok.ok()) probe_error = ok.error();
  }
  if (!usable) return Unexpected(probe_error);
  return device().read(out);
}

std::string_view entropy_source() {
  return "jh7110-trng";
}

std::string_view boot_entropy(std::span<std::byte> out) {
  return fill_entropy(out).ok() ? entropy_source() : std::string_view{};
}

}  // namespace starling::hal
