#include "net/fairness/peer_shares.h"

#include <cstdint>

#include "kernel/console/console.h"
#include "kernel/lib/bootargs.h"

namespace starling::net {
namespace {

using console::print;

#define STARLING_PEER_SHARE(key, what, holds, counter, fallback, bound, set, get) \
  PeerShare{key, what, fallback, bound, set, get},
constexpr PeerShare kShares[] = {STARLING_PEER_SHARES(STARLING_PEER_SHARE)};
#undef STARLING_PEER_SHARE

void print_number(std::size_t n) {
  console::print_dec(static_cast<std::int64_t>(n));
}

void apply(std::string_view app, std::string_view bootargs, const PeerShare& share) {
  const BootargValue arg = bootarg_value(bootargs, share.key);
  if (!arg.found) return;
  std::uint64_t n = 0;
  if (!arg.repeated && arg.value == "off") {
    share.set(0);
  } else if (!arg.repeated && parse_bootarg_number(arg.value, 1, share.bound(), &n)) {
    share.set(static_cast<std::size_t>(n));
  } else {
    print(app);
    print(": ignoring ");
    print(share.key);
    if (arg.repeated) {
      print("=: given twice");
    } else {
      print("=: not 1 to ");
      print_number(share.bound());
      print(" or off");
    }
    print("; fix: ");
    print(share.key);
    print("=");
    print_number(share.fallback);
    print("; keeping ");
    print_number(share.get());
    print("\n");
    return;
  }
  print(app);
  print(": ");
  print(share.what);
  print(": ");
  if (share.get() == 0) {
    print("no limit (");
    print(share.key);
    print("=off)\n");
  } else {
    print_number(share.get());
    print(" of ");
    print_number(share.bound());
    print(" (");
    print(share.key);
    print("=)\n");
  }
}

}  // namespace

std::span<const PeerShare> peer_shares() noexcept {
  return kShares;
}

void apply_peer_shares(std::string_view app, std::string_view bootargs) {
  for (const PeerShare& share : kShares) apply(app, bootargs, share);
}

}  // namespace starling::net
