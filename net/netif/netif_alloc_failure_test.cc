// Allocation failure at every allocation site in turn, through the netif
// (issue 7): the production lwIP options, a fake NIC, zero-copy RX wrappers
// and net/udp's sockets. A workload (a socket echoes three datagrams back
// to their sender, as apps/echo does) is run once to count the calls of an
// allocator, then once per N with call N failing. After each faulted run the
// same workload unarmed must echo every datagram byte-exact, and lwIP's
// pools and heap, the coroutine frames, the RX wrappers and the NIC's
// buffers must all be back at their baseline. The TCP side of the same
// sweep is net/tcp/tests/alloc_failure_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "lwip/memp.h"
#include "lwip/stats.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/netif/test_frames.h"
#include "net/tcp/tests/alloc_sweep.h"
#include "net/tcp/tests/failure_injection.h"
#include "net/udp/udp.h"

namespace starling::net {
namespace {

using testing::AllocSite;
using testing::arp_reply;
using testing::Bytes;
using testing::FakeNic;
using testing::get16;
using testing::pattern;
using testing::udp_frame;

constexpr std::size_t kRxWrappers = 16;

FakeNic g_nic;
Netif<FakeNic, kRxWrappers> g_netif(g_nic);
std::uint16_t g_next_port = 2000;

// The echo of the datagram `payload` to port `from`, in what the NIC sent?
bool sent_echo(std::uint16_t from, std::uint16_t to, const Bytes& payload) {
  return std::any_of(g_nic.sent.begin(), g_nic.sent.end(), [&](const Bytes& f) {
    return f.size() == 42 + payload.size() && get16(f, 12) == 0x0800 && get16(f, 34) == from &&
           get16(f, 36) == to && std::equal(f.begin() + 42, f.end(), payload.begin());
  });
}

// A socket on a fresh port echoes three datagrams; kNotFound if an echo is
// missing from the wire, kMalformed if one came out different. The first
// and last go back in their received buffers (their headers in place, no
// allocation: lwIP patch 0017); the second from the application's own copy
// (a PBUF_REF, with a header pbuf from lwIP's heap in front), so that every
// allocation site of both send paths is on the workload's way.
async::Task<void> workload() {
  const std::uint16_t port = g_next_port++;
  UdpSocket socket;
  if (Result<void> r = socket.bind(port); !r) co_return r;
  g_nic.sent.clear();
  for (std::uint32_t i = 0; i < 3; ++i) {
    const Bytes payload = pattern(40 + 600 * i, port + i);
    if (!g_nic.inject(udp_frame(static_cast<std::uint16_t>(40000 + i), port, payload))) {
      co_return Unexpected(Error::kBusy);
    }
    g_nic.kick();
    auto d = co_await async::with_timeout(socket.receive_from(), 100 * async::kMillisecond);
    if (!d) co_return Unexpected(d.error());
    if (i == 1) {
      std::vector<std::byte> copy(d->data.size());
      (void)d->data.copy_to(copy);
      if (Result<void> r = socket.send_to(d->from, copy); !r) co_return r;
    } else if (Result<void> r = socket.send_to(d->from, d->data); !r) {
      co_return r;
    }
  }
  for (std::uint32_t i = 0; i < 3; ++i) {
    const Bytes payload = pattern(40 + 600 * i, port + i);
    if (!sent_echo(port, static_cast<std::uint16_t>(40000 + i), payload)) {
      co_return Unexpected(Error::kNotFound);
    }
  }
  co_return {};
}

struct PoolCounts {
  std::array<std::size_t, MEMP_MAX> memp{};
  std::size_t heap = 0;
  std::size_t frames = 0;
  std::size_t rx_wrappers = 0;
  std::size_t nic_buffers_with_stack = 0;
  bool operator==(const PoolCounts&) const = default;
};

PoolCounts pool_counts(const async::FrameAllocator& frames) {
  PoolCounts c;
  for (int i = 0; i < MEMP_MAX; ++i) c.memp[i] = lwip_stats.memp[i]->used;
  c.heap = lwip_stats.mem.used;
  c.frames = frames.frames_in_use();
  c.rx_wrappers = g_netif.rx_pool().in_use();
  c.nic_buffers_with_stack = g_nic.with_stack();
  return c;
}

std::string diff(const PoolCounts& want, const PoolCounts& got) {
  std::string s;
  char line[96];
  for (int i = 0; i < MEMP_MAX; ++i) {
    if (want.memp[i] == got.memp[i]) continue;
    std::snprintf(line, sizeof line, " memp[%d] %zu->%zu", i, want.memp[i], got.memp[i]);
    s += line;
  }
  std::snprintf(line, sizeof line,
                " heap %zu->%zu frames %zu->%zu rx_wrappers %zu->%zu nic %zu->%zu", want.heap,
                got.heap, want.frames, got.frames, want.rx_wrappers, got.rx_wrappers,
                want.nic_buffers_with_stack, got.nic_buffers_with_stack);
  return s + line;
}

using testing::SweepRun;

class NetifAllocFailureTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  NetifAllocFailureTest() : RuntimeFixture(std::size_t{4} << 20) {
    static bool started = false;
    if (!started) {
      started = true;
      EXPECT_TRUE(g_netif.start(kQemuUserDefault).ok());
    }
  }
  ~NetifAllocFailureTest() override { testing::injection_reset(); }

  async::Task<void> settle(const PoolCounts& want, PoolCounts& got) {
    got = pool_counts(frames_);
    for (int i = 0; i < 200 && got != want; ++i) {
      co_await async::sleep_for(async::kMillisecond);
      got = pool_counts(frames_);
    }
    co_return {};
  }

  // The baseline is the idle stack (the netif task parked in its wait,
  // which holds a frame): right after the workload the task may still be
  // running, so sample until two samples 5 ms apart agree. A task, like
  // settle(), so that its own frame is counted the same way.
  async::Task<void> idle_counts(PoolCounts& out) {
    out = pool_counts(frames_);
    for (int i = 0; i < 100; ++i) {
      co_await async::sleep_for(5 * async::kMillisecond);
      const PoolCounts now = pool_counts(frames_);
      if (now == out) break;
      out = now;
    }
    co_return {};
  }

  async::Task<void> sweep(AllocSite site, std::uint64_t& calls, std::vector<SweepRun>& out) {
    async::Scope scope;
    if (Result<void> r = scope.spawn(g_netif.run()); !r) co_return r;
    // The peer's MAC, learnt before anything is armed (an ARP request
    // failing would only delay the first echo).
    EXPECT_TRUE(g_nic.inject(arp_reply()));
    g_nic.kick();
    co_await async::sleep_for(5 * async::kMillisecond);
    Result<void> warm = co_await async::with_timeout(workload(), async::kSecond);
    EXPECT_TRUE(warm.ok()) << error_name(warm.error());
    PoolCounts baseline;
    (void)co_await idle_counts(baseline);
    testing::injection_reset();
    Result<void> counted = co_await async::with_timeout(workload(), async::kSecond);
    calls = testing::injection_calls(site);
    EXPECT_TRUE(counted.ok()) << error_name(counted.error());
    PoolCounts after;
    (void)co_await settle(baseline, after);
    EXPECT_EQ(after, baseline) << "unarmed run leaked:" << diff(baseline, after);
    for (std::uint64_t n = 1; n <= calls; ++n) {
      SweepRun o;
      o.n = n;
      testing::injection_reset();
      testing::injection_fail_call(site, n);
      Result<void> faulted = co_await async::with_timeout(workload(), async::kSecond);
      testing::injection_fail_call(site, 0);
      o.injected = testing::injection_failures(site) == 1;
      o.faulted_ok = faulted.ok();
      if (!faulted) o.faulted = faulted.error();
      Result<void> again = co_await async::with_timeout(workload(), async::kSecond);
      o.recovered = again.ok();
      (void)co_await settle(baseline, after);
      o.settled = after == baseline;
      if (!o.settled) o.leak = diff(baseline, after);
      out.push_back(o);
    }
    scope.cancel();
    co_return {};
  }

  void run_sweep(AllocSite site) {
    std::uint64_t calls = 0;
    std::vector<SweepRun> outcomes;
    Result<void> r = executor_.block_on(sweep(site, calls, outcomes));
    ASSERT_TRUE(r.ok()) << error_name(r.error());
    EXPECT_GE(calls, 1u) << "the workload must allocate from " << testing::site_name(site);
    testing::check_sweep(testing::site_name(site), calls, outcomes);
  }
};

TEST_F(NetifAllocFailureTest, EveryMempAllocationFailsInTurn) {
  run_sweep(AllocSite::kMemp);
}

TEST_F(NetifAllocFailureTest, EveryHeapAllocationFailsInTurn) {
  run_sweep(AllocSite::kMem);
}

// Found by this sweep: a frame that could not be allocated for the netif's
// wait (with_timeout(wait_for_work())) ended Netif::run() for good, and with
// it all networking. Now it is counted and the loop goes on.
TEST_F(NetifAllocFailureTest, EveryFrameAllocationFailsInTurn) {
  const std::uint64_t before = g_netif.stats().wait_no_memory;
  run_sweep(AllocSite::kFrame);
  EXPECT_GT(g_netif.stats().wait_no_memory, before) << "the failed wait was not counted";
}

}  // namespace
}  // namespace starling::net
