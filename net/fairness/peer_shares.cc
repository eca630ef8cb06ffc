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
  const NumberParam param{.key = share.key,
                          .low = 1,
                          .high = share.bound(),
                          .fallback = share.fallback,
                          .off = true,
                          .help = share.what};
  text::Line<128> why;
  const NumberParamReading reading = read_number_param(bootargs, param, why);
  if (!reading.found) return;
  if (reading.refused) {
    text::Line<32> kept;
    kept.put("keeping ");
    kept.put_decimal(share.get());
    console::print_ignoring(app, {why.view()}, kept.view());
    return;
  }
  share.set(static_cast<std::size_t>(reading.value));
  text::Line<160> line;
  line.put(app);
  line.put(": ");
  line.put(share.what);
  line.put(": ");
  if (reading.value == 0) {
    line.put("no limit (");
    line.put(share.key);
    line.put("=off)");
  } else {
    line.put_decimal(reading.value);
    line.put(" of ");
    line.put_decimal(share.bound());
    line.put(" (");
    line.put(share.key);
    line.put("=)");
  }
  line.put('\n');
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
