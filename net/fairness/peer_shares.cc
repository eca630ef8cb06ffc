#include "net/fairness/peer_shares.h"

#include <cstdint>

#include "kernel/console/console.h"
#include "kernel/lib/bootargs.h"
#include "kernel/text/writer.h"

namespace starling::net {
namespace {

#define STARLING_PEER_SHARE(key, what, holds, counter, fallback, bound, set, get) \
  PeerShare{key, what, fallback, bound, set, get},
constexpr PeerShare kShares[] = {STARLING_PEER_SHARES(STARLING_PEER_SHARE)};
#undef STARLING_PEER_SHARE

void apply(std::string_view app, std::string_view bootargs, const PeerShare& share) {
  const BootargValue arg = bootarg_value(bootargs, share.key);
  if (!arg.found) return;
  text::Line<160> line;
  line.put(app);
  std::uint64_t n = 0;
  if (!arg.repeated && arg.value == "off") {
    share.set(0);
  } else if (!arg.repeated && parse_bootarg_number(arg.value, 1, share.bound(), &n)) {
    share.set(static_cast<std::size_t>(n));
  } else {
    line.put(": ignoring ");
    line.put(share.key);
    if (arg.repeated) {
      line.put("=: given twice");
    } else {
      line.put("=: not 1 to ");
      line.put_decimal(share.bound());
      line.put(" or off");
    }
    line.put("; fix: ");
    line.put(share.key);
    line.put('=');
    line.put_decimal(share.fallback);
    line.put("; keeping ");
    line.put_decimal(share.get());
    line.put('\n');
    console::print(line.view());
    return;
  }
  line.put(": ");
  line.put(share.what);
  line.put(": ");
  if (share.get() == 0) {
    line.put("no limit (");
    line.put(share.key);
    line.put("=off)\n");
  } else {
    line.put_decimal(share.get());
    line.put(" of ");
    line.put_decimal(share.bound());
    line.put(" (");
    line.put(share.key);
    line.put("=)\n");
  }
  console::print(line.view());
}

}  // namespace

std::span<const PeerShare> peer_shares() noexcept {
  return kShares;
}

void apply_peer_shares(std::string_view app, std::string_view bootargs) {
  for (const PeerShare& share : kShares) apply(app, bootargs, share);
}

}  // namespace starling::net
