#ifndef STARLING_NET_TCP_TESTS_FAILURE_INJECTION_H_
#define STARLING_NET_TCP_TESTS_FAILURE_INJECTION_H_

#include <cstdint>

// Test support: fails the Nth allocation of one allocator, then lets every
// later one succeed, so a test can sweep N over every allocation a workload
// makes and check each failure is survived.
//
// The hooks are link-time wraps (-Wl,--wrap=...; see BUILD.bazel's
// kFailureInjectionLinkopts): every call of lwIP's memp_malloc / mem_malloc
// and of async::FrameAllocator::allocate from another object file goes
// through the counter first. Only a statically linked test (linkstatic) is
// wrapped completely: a shared library resolves its calls when it is built.
//
// Not injected: memp_malloc(MEMP_SYS_TIMEOUT). lwIP asserts on it (a timer
// that cannot be re-armed is lost for good) and sizes that pool statically
// for its own timers (MEMP_NUM_SYS_TIMEOUT), so it cannot run out; its calls
// are not counted either.
namespace starling::net::testing {

enum class AllocSite : std::uint8_t {
  kMemp,   // lwIP's fixed pools: PCBs, segments, pbuf headers, PBUF_POOL
  kMem,    // lwIP's heap: PBUF_RAM pbufs (TCP data, UDP/ICMP replies)
  kFrame,  // coroutine frames
};
inline constexpr int kAllocSiteCount = 3;

const char* site_name(AllocSite site) noexcept;

// Zeroes the call counts and disarms.
void injection_reset() noexcept;
// From now on, call number `n` (1-based, counted from the last reset) of
// `site` returns nullptr; 0 disarms.
void injection_fail_call(AllocSite site, std::uint64_t n) noexcept;
// Calls of `site` since the last reset (the failed one included).
std::uint64_t injection_calls(AllocSite site) noexcept;
// Allocations made to fail since the last reset.
std::uint64_t injection_failures(AllocSite site) noexcept;

}  // namespace starling::net::testing

#endif  // STARLING_NET_TCP_TESTS_FAILURE_INJECTION_H_
