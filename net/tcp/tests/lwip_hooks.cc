// The hooks net/lwip/arch/cc.h declares, for host tests, and sys_now() on
// the host board's clock (as net/lwip/sys_arch.cc does for the kernel).
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>

#include "kernel/hal/clock.h"
#include "kernel/lib/siphash.h"
#include "lwip/sys.h"
#include "net/lwip/arch/hooks.h"
#include "net/tcp/tests/loopback.h"

extern "C" void starling_lwip_assert(const char* message, const char* file, int line) {
  std::fprintf(stderr, "lwIP assertion failed: %s at %s:%d\n", message, file, line);
  std::abort();
}

extern "C" void starling_lwip_diag(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
}

extern "C" uint32_t starling_lwip_rand(void) {
  static std::minstd_rand rng(12345);
  return static_cast<uint32_t>(rng());
}

// LWIP_HOOK_TCP_ISN (net/lwip/arch/hooks.h): the production hash lives in
// net/port/random.cc (tested there); these tests only need distinct ISNs.
extern "C" u32_t starling_tcp_isn(const ip_addr_t*, u16_t, const ip_addr_t*, u16_t) {
  return starling_lwip_rand();
}

// LWIP_HOOK_TCP_SYN_COOKIE: a fixed-key SipHash (the production one keys it
// from the board's entropy: net/port/random.cc). Every connection in these
// tests goes through a cookie.
extern "C" u32_t starling_tcp_syncookie(const ip_addr_t* local_ip, u16_t local_port,
                                        const ip_addr_t* remote_ip, u16_t remote_port,
                                        u32_t client_isn, u32_t counter) {
  const std::uint32_t words[6] = {ip_addr_get_ip4_u32(local_ip),
                                  local_port,
                                  ip_addr_get_ip4_u32(remote_ip),
                                  remote_port,
                                  client_isn,
                                  counter};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(words);
  return static_cast<u32_t>(
      starling::siphash24(starling::SipKey{0x5eed, 0xc00c1e}, std::span(bytes, sizeof words)));
}

extern "C" u32_t sys_now(void) {
  return static_cast<u32_t>(starling::hal::now_ns() / 1'000'000U *
                            starling::net::testing::lwip_clock_speed());
}

// LWIP_HOOK_ND6_GET_GW: these tests run IPv4 over a loopback netif; no
// static IPv6 gateway (the production one: net/port/ip6_gateway.cc).
extern "C" const ip6_addr_t* starling_nd6_gateway(struct netif*, const ip6_addr_t*) {
  return nullptr;
}

// LWIP_HOOK_ICMP6_ERROR_ADMIT: no limit in these tests (the production
// bucket: net/port/icmp6_rate.cc).
extern "C" int starling_icmp6_error_admit(u8_t, u8_t) {
  return 1;
}
