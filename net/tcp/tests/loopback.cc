#include "net/tcp/tests/loopback.h"

#include "kernel/async/event.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"
#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/timeouts.h"

namespace starling::net::testing {
namespace {

constexpr std::size_t kQueue = 4096;
pbuf* g_queue[kQueue];
std::size_t g_head = 0;
std::size_t g_count = 0;
std::uint64_t g_dropped = 0;
netif g_netif;
async::Event* g_wake = nullptr;  // the pump's, while it waits
std::uint32_t g_clock_speed = 1;

err_t loop_output(netif*, pbuf* p, const ip4_addr_t*) {
  if (g_count == kQueue) {
    ++g_dropped;
    return ERR_OK;  // a lost packet, like a full NIC ring
  }
  pbuf* copy = pbuf_clone(PBUF_RAW, PBUF_RAM, p);
  if (copy == nullptr) {
    ++g_dropped;
    return ERR_OK;
  }
  g_queue[(g_head + g_count++) % kQueue] = copy;
  if (g_wake != nullptr) g_wake->set();
  return ERR_OK;
}

err_t loop_init(netif* n) {
  n->name[0] = 'l';
  n->name[1] = 'b';
  n->output = loop_output;
  n->mtu = 1500;
  n->flags = 0;
  return ERR_OK;
}

}  // namespace

void init_lwip_once() noexcept {
  static bool done = false;
  if (done) return;
  done = true;
  lwip_init();
  ip4_addr_t ip;
  ip4_addr_t mask;
  ip4_addr_t gw;
  IP4_ADDR(&ip, kLoopbackIp[0], kLoopbackIp[1], kLoopbackIp[2], kLoopbackIp[3]);
  IP4_ADDR(&mask, 255, 255, 255, 0);
  IP4_ADDR(&gw, 0, 0, 0, 0);
  netif_add(&g_netif, &ip, &mask, &gw, nullptr, loop_init, ip_input);
  netif_set_default(&g_netif);
  netif_set_up(&g_netif);
  netif_set_link_up(&g_netif);
}

async::Task<void> pump() noexcept {
  async::Event wake;
  g_wake = &wake;
  struct Unset {
    ~Unset() { g_wake = nullptr; }
  } unset;
  for (;;) {
    std::size_t batch = 0;
    while (g_count > 0 && batch < 256) {
      pbuf* p = g_queue[g_head];
      g_head = (g_head + 1) % kQueue;
      --g_count;
      ++batch;
      if (g_netif.input(p, &g_netif) != ERR_OK) pbuf_free(p);
    }
    sys_check_timeouts();
    if (g_count > 0) {
      co_await async::yield();
      continue;
    }
    wake.reset();
    const u32_t sleep_ms = sys_timeouts_sleeptime();
    const std::uint64_t ms = sleep_ms == SYS_TIMEOUTS_SLEEPTIME_INFINITE ? 100 : sleep_ms;
    const std::uint64_t ns = (ms == 0 ? 1 : ms) * async::kMillisecond / g_clock_speed;
    (void)co_await async::with_timeout(wake.wait(), ns);
  }
}

std::size_t queued_packets() noexcept {
  return g_count;
}
std::uint64_t dropped_packets() noexcept {
  return g_dropped;
}

void set_lwip_clock_speed(std::uint32_t speed) noexcept {
  g_clock_speed = speed == 0 ? 1 : speed;
}
std::uint32_t lwip_clock_speed() noexcept {
  return g_clock_speed;
}

void flush_packets() noexcept {
  while (g_count > 0) {
    pbuf_free(g_queue[g_head]);
    g_head = (g_head + 1) % kQueue;
    --g_count;
  }
}

}  // namespace starling::net::testing
