// Allocation failure at every allocation site in turn (issue 7): a small
// workload (UDP echo of three datagrams on lwIP's raw API, one TCP echo
// connection through net/tcp that sends, half-closes and closes) is run once
// to count the calls of an allocator, then once per N with call N failing.
// After each faulted run the service must still work (the same workload,
// unarmed, succeeds), the faulted run must have ended in a value (success
// after lwIP retransmitted, or an Error), and every pool count must be back
// at its baseline: lwIP's memp pools and heap, coroutine frames, net/tcp's
// connection slots.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "kernel/async/event.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/clock.h"
#include "lwip/ip_addr.h"
#include "lwip/memp.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/udp.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/alloc_sweep.h"
#include "net/tcp/tests/failure_injection.h"
#include "net/tcp/tests/loopback.h"

namespace starling::net::testing {
namespace {

using async::kMillisecond;
using async::kSecond;
using async::Task;

// lwIP time runs this much faster than the host's (loopback.h): a lost SYN
// is retransmitted after 150 ms instead of 3 s.
constexpr std::uint32_t kClockSpeed = 20;
constexpr std::uint64_t kFaultedRunNs = 1500 * kMillisecond;
constexpr std::uint64_t kRecoveryRunNs = 5 * kSecond;
constexpr std::uint64_t kSettleNs = 3 * kSecond;
constexpr std::size_t kTcpBytes = 3000;

std::uint16_t g_next_port = 20000;

std::byte pattern(std::size_t i, std::size_t salt) {
  return static_cast<std::byte>((i * 13 + salt * 7 + i / 251) & 0xFF);
}

// An echo that differs from what was sent: kCancelled if it is a prefix (the
// echo stopped early: a lost connection, told to the peer), kMalformed if
// any byte differs (corruption: never acceptable).
Error mismatch(const std::vector<std::byte>& got, const std::vector<std::byte>& sent) {
  if (got.size() < sent.size() && std::equal(got.begin(), got.end(), sent.begin())) {
    return Error::kCancelled;
  }
  return Error::kMalformed;
}

// ---------------------------------------------------------------- UDP

void udp_echo_recv(void*, udp_pcb* pcb, pbuf* p, const ip_addr_t* addr, u16_t port) {
  // A reply that cannot be sent is a lost datagram, as on a wire.
  (void)udp_sendto(pcb, p, addr, port);
  pbuf_free(p);
}

struct UdpClient {
  std::vector<std::vector<std::byte>> got;
  async::Event arrived;
};

void udp_client_recv(void* arg, udp_pcb*, pbuf* p, const ip_addr_t*, u16_t) {
  auto* c = static_cast<UdpClient*>(arg);
  std::vector<std::byte> d(p->tot_len);
  (void)pbuf_copy_partial(p, d.data(), p->tot_len, 0);
  c->got.push_back(std::move(d));
  pbuf_free(p);
  c->arrived.set();
}

// Owns a udp_pcb: a cancelled or failed workload removes it too.
struct UdpPcb {
  udp_pcb* pcb = udp_new();
  UdpPcb() = default;
  UdpPcb(const UdpPcb&) = delete;
  UdpPcb& operator=(const UdpPcb&) = delete;
  ~UdpPcb() {
    if (pcb != nullptr) udp_remove(pcb);
  }
};

Task<void> udp_echo_three(std::uint16_t port) {
  UdpPcb server;
  if (server.pcb == nullptr) co_return Unexpected(Error::kNoMemory);
  if (err_t e = udp_bind(server.pcb, IP4_ADDR_ANY, port); e != ERR_OK) {
    co_return Unexpected(from_lwip_error(e));
  }
  udp_recv(server.pcb, udp_echo_recv, nullptr);
  UdpPcb client_pcb;
  if (client_pcb.pcb == nullptr) co_return Unexpected(Error::kNoMemory);
  UdpClient client;
  udp_recv(client_pcb.pcb, udp_client_recv, &client);
  ip_addr_t server_ip;
  IP_ADDR4(&server_ip, kLoopbackIp[0], kLoopbackIp[1], kLoopbackIp[2], kLoopbackIp[3]);
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<std::byte> data(100 + 500 * i);
    for (std::size_t j = 0; j < data.size(); ++j) data[j] = pattern(j, i);
    pbuf* p = pbuf_alloc(PBUF_TRANSPORT, static_cast<u16_t>(data.size()), PBUF_RAM);
    if (p == nullptr) co_return Unexpected(Error::kNoMemory);
    (void)pbuf_take(p, data.data(), static_cast<u16_t>(data.size()));
    const err_t e = udp_sendto(client_pcb.pcb, p, &server_ip, port);
    pbuf_free(p);
    if (e != ERR_OK) co_return Unexpected(from_lwip_error(e));
    while (client.got.size() <= i) {
      client.arrived.reset();
      Result<void> w = co_await async::with_timeout(client.arrived.wait(), 300 * kMillisecond);
      if (!w) co_return w;
    }
    if (client.got[i] != data) co_return Unexpected(mismatch(client.got[i], data));
  }
  co_return {};
}

// ---------------------------------------------------------------- TCP

// On an error the echo has lost bytes: reset (not FIN), so that the peer
// cannot take a truncated echo for a complete one.
Task<void> tcp_echo(TcpStream s) {
  std::array<std::byte, 1024> buf;
  for (;;) {
    Result<std::size_t> n = co_await s.read(buf);
    if (!n) {
      s.abort();
      co_return Unexpected(n.error());
    }
    if (*n == 0) break;
    Result<std::size_t> w = co_await s.write(std::span(buf.data(), *n));
    if (!w) {
      s.abort();
      co_return Unexpected(w.error());
    }
  }
  co_return s.close();
}

Task<void> tcp_echo_server(TcpListener& l, async::Scope& conns) {
  for (;;) {
    Result<TcpStream> s = co_await l.accept();
    if (!s) co_return Unexpected(s.error());
    if (Result<void> r = conns.spawn(tcp_echo(std::move(*s))); !r) co_return r;
  }
}

Task<void> tcp_send_close(TcpStream& s, std::span<const std::byte> d) {
  Result<std::size_t> w = co_await s.write(d);
  if (!w) co_return Unexpected(w.error());
  co_return s.shutdown();
}

Task<void> tcp_echo_once(std::uint16_t port) {
  Result<TcpListener> l = TcpListener::listen(port, 4);
  if (!l) co_return Unexpected(l.error());
  async::Scope conns;  // destroyed after server: no accept is left to feed it
  async::Scope server;
  if (Result<void> r = server.spawn(tcp_echo_server(*l, conns)); !r) co_return r;
  Result<TcpStream> c = co_await TcpStream::connect(
      {IpAddress::v4(ipv4(kLoopbackIp[0], kLoopbackIp[1], kLoopbackIp[2], kLoopbackIp[3])), port});
  if (!c) co_return Unexpected(c.error());
  std::vector<std::byte> data(kTcpBytes);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = pattern(i, port);
  async::Scope writer;
  if (Result<void> r = writer.spawn(tcp_send_close(*c, data)); !r) co_return r;
  std::vector<std::byte> got;
  std::array<std::byte, 1500> buf;
  for (;;) {
    Result<std::size_t> n = co_await c->read(buf);
    if (!n) co_return Unexpected(n.error());
    if (*n == 0) break;
    got.insert(got.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
  }
  if (Result<void> r = co_await writer.join(); !r) co_return r;
  if (got != data) co_return Unexpected(mismatch(got, data));
  if (Result<void> r = co_await conns.join(); !r) co_return r;
  co_return c->close();
}

Task<void> workload() {
  const std::uint16_t port = g_next_port++;
  if (Result<void> r = co_await udp_echo_three(port); !r) co_return r;
  co_return co_await tcp_echo_once(port);
}

// ---------------------------------------------------------------- pools

struct PoolCounts {
  std::array<std::size_t, MEMP_MAX> memp{};
  std::size_t heap = 0;
  std::size_t frames = 0;
  std::size_t tcp_conns = 0;

  bool operator==(const PoolCounts&) const = default;
};

std::size_t count_pcbs(const tcp_pcb* p) {
  std::size_t n = 0;
  for (; p != nullptr; p = p->next) ++n;
  return n;
}

PoolCounts pool_counts(const async::FrameAllocator& frames) {
  PoolCounts c;
  for (int i = 0; i < MEMP_MAX; ++i) c.memp[i] = lwip_stats.memp[i]->used;
  // TIME_WAIT PCBs are the protocol's, not a leak: lwIP ends them after
  // 2*MSL and takes the oldest back whenever a new PCB finds none free.
  c.memp[MEMP_TCP_PCB] -= count_pcbs(tcp_tw_pcbs);
  c.heap = lwip_stats.mem.used;
  c.frames = frames.frames_in_use();
  c.tcp_conns = tcp_stats().connections_in_use;
  return c;
}

std::string diff(const PoolCounts& want, const PoolCounts& got) {
  std::string s;
  char line[128];
  for (int i = 0; i < MEMP_MAX; ++i) {
    if (want.memp[i] == got.memp[i]) continue;
    std::snprintf(line, sizeof line, " memp[%d] %zu->%zu", i, want.memp[i], got.memp[i]);
    s += line;
  }
  if (want.heap != got.heap) {
    std::snprintf(line, sizeof line, " heap %zu->%zu", want.heap, got.heap);
    s += line;
  }
  if (want.frames != got.frames) {
    std::snprintf(line, sizeof line, " frames %zu->%zu", want.frames, got.frames);
    s += line;
  }
  if (want.tcp_conns != got.tcp_conns) {
    std::snprintf(line, sizeof line, " tcp_conns %zu->%zu", want.tcp_conns, got.tcp_conns);
    s += line;
  }
  return s;
}

// Lets lwIP's timers and the last closes run until the counts are back.
Task<void> settle(const PoolCounts& want, const async::FrameAllocator& frames, PoolCounts& got) {
  const std::uint64_t deadline = hal::now_ns() + kSettleNs;
  got = pool_counts(frames);
  while (got != want && hal::now_ns() < deadline) {
    co_await async::sleep_for(5 * kMillisecond);
    got = pool_counts(frames);
  }
  co_return {};
}

// ---------------------------------------------------------------- sweep

struct Sweep {
  std::uint64_t calls = 0;
  std::vector<SweepRun> outcomes;
};

class AllocFailureTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  AllocFailureTest() : RuntimeFixture(std::size_t{16} << 20) {
    set_lwip_clock_speed(kClockSpeed);
    init_lwip_once();
  }
  ~AllocFailureTest() override {
    injection_reset();
    flush_packets();
  }

  Task<void> sweep(AllocSite site, Sweep& out) {
    async::Scope scope;
    if (Result<void> r = scope.spawn(pump()); !r) co_return r;
    // Warm up (first-use allocations), then the baseline.
    Result<void> warm = co_await async::with_timeout(workload(), kRecoveryRunNs);
    EXPECT_TRUE(warm.ok()) << error_name(warm.error());
    co_await async::sleep_for(50 * kMillisecond);
    PoolCounts baseline;
    (void)co_await settle(pool_counts(frames_), frames_, baseline);
    // Count the calls of an unarmed run.
    injection_reset();
    Result<void> counted = co_await async::with_timeout(workload(), kRecoveryRunNs);
    out.calls = injection_calls(site);
    EXPECT_TRUE(counted.ok());
    PoolCounts after;
    (void)co_await settle(baseline, frames_, after);
    EXPECT_EQ(after, baseline) << "unarmed run leaked:" << diff(baseline, after);

    for (std::uint64_t n = 1; n <= out.calls; ++n) {
      SweepRun o;
      o.n = n;
      injection_reset();
      injection_fail_call(site, n);
      Result<void> faulted = co_await async::with_timeout(workload(), kFaultedRunNs);
      injection_fail_call(site, 0);
      o.injected = injection_failures(site) == 1;
      o.faulted_ok = faulted.ok();
      if (!faulted) o.faulted = faulted.error();
      Result<void> again = co_await async::with_timeout(workload(), kRecoveryRunNs);
      o.recovered = again.ok();
      (void)co_await settle(baseline, frames_, after);
      o.settled = after == baseline;
      if (!o.settled) o.leak = diff(baseline, after);
      out.outcomes.push_back(o);
    }
    scope.cancel();
    co_return {};
  }

  void run_sweep(AllocSite site) {
    Sweep s;
    Result<void> r = executor_.block_on(sweep(site, s));
    ASSERT_TRUE(r.ok()) << error_name(r.error());
    EXPECT_GE(s.calls, 3u) << "the workload must allocate from " << site_name(site);
    check_sweep(site_name(site), s.calls, s.outcomes);
  }
};

TEST_F(AllocFailureTest, EveryMempAllocationFailsInTurn) {
  run_sweep(AllocSite::kMemp);
}

TEST_F(AllocFailureTest, EveryHeapAllocationFailsInTurn) {
  run_sweep(AllocSite::kMem);
}

TEST_F(AllocFailureTest, EveryFrameAllocationFailsInTurn) {
  run_sweep(AllocSite::kFrame);
}

}  // namespace
}  // namespace starling::net::testing
