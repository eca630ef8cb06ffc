#include "net/port/icmp6_rate.h"

#include "kernel/hal/clock.h"
#include "net/lwip/arch/hooks.h"

namespace starling::net {
namespace {

constexpr std::uint64_t kNsPerToken = 1'000'000'000ull / kIcmp6ErrorsPerSecond;

constinit Icmp6RateStats g_stats{};
constinit std::uint32_t g_tokens = kIcmp6ErrorBurst;
constinit std::uint64_t g_last_ns = 0;

}  // namespace

bool admit_icmp6_error(std::uint64_t now_ns) noexcept {
  if (now_ns > g_last_ns) {
    const std::uint64_t earned = (now_ns - g_last_ns) / kNsPerToken;
    if (earned != 0) {
      g_tokens = static_cast<std::uint32_t>(
          earned >= kIcmp6ErrorBurst - g_tokens ? kIcmp6ErrorBurst : g_tokens + earned);
      // Keep the remainder: the bucket refills at the stated rate exactly.
      g_last_ns = g_tokens == kIcmp6ErrorBurst ? now_ns : g_last_ns + earned * kNsPerToken;
    }
  }
  if (g_tokens == 0) {
    ++g_stats.limited;
    return false;
  }
  --g_tokens;
  ++g_stats.sent;
  return true;
}

const Icmp6RateStats& icmp6_rate_stats() noexcept {
  return g_stats;
}

void reset_icmp6_rate_for_testing(std::uint64_t now_ns) noexcept {
  g_tokens = kIcmp6ErrorBurst;
  g_last_ns = now_ns;
}

}  // namespace starling::net

extern "C" int starling_icmp6_error_admit(u8_t /*type*/, u8_t /*code*/) {
  return starling::net::admit_icmp6_error(starling::hal::now_ns()) ? 1 : 0;
}
