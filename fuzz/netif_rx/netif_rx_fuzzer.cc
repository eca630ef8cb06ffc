// Fuzzes the receive path end to end: raw Ethernet frames from the NIC (the
// host test NIC, net/netif/fake_nic.h) through the netif's zero-copy RX pool
// and lwIP (our lwipopts.h) to the echo services the echo app runs: UDP echo
// on 1235 and TCP echo on 1236, coroutines on the executor.
//
// Input: frames, each a 2-byte big-endian length and that many bytes (the
// last one may be short), at most kMaxFrames. Each frame is injected and the
// executor run until nothing is ready. Then the services are cancelled and
// what lwIP still holds for this input is released (connections aborted, ARP
// and reassembly state flushed), and every pool must be back to where it was
// before the input: a frame that leaks a buffer, a PCB or heap fails here,
// not after days of uptime.
//
// lwIP checks checksums in software (lwipopts.h); the fuzzer's netif turns
// the checks off per netif (LWIP_CHECKSUM_CTRL_PER_NETIF, as a NIC with
// checksum offload would) so mutated frames reach UDP and TCP.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "fuzz/harness.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "lwip/etharp.h"
#include "lwip/ip4_frag.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "net/netif/fake_nic.h"
#include "net/netif/netif.h"
#include "net/tcp/tcp.h"
#include "net/udp/udp.h"

namespace {

using namespace starling;  // NOLINT(google-build-using-namespace): a harness

constexpr std::uint16_t kUdpEchoPort = 1235;
constexpr std::uint16_t kTcpEchoPort = 1236;
constexpr std::size_t kMaxFrames = 24;
constexpr std::size_t kMaxFrameBytes = 1514;
// Executor passes per frame: an echo round trip needs a handful.
constexpr int kMaxPasses = 200;

using Netif = net::Netif<net::testing::FakeNic, 64>;

void check(bool condition, const char* what) {
  fuzz::check(condition, "netif_rx", what);
}

async::Task<void> udp_echo() {
  net::UdpSocket socket;
  if (auto ok = socket.bind(kUdpEchoPort); !ok.ok()) co_return ok;
  for (;;) {
    auto datagram = co_await socket.receive_from();
    if (!datagram.ok()) co_return Unexpected(datagram.error());
    (void)socket.send_to(datagram->from, datagram->data);
  }
}

async::Task<void> tcp_echo_connection(net::TcpStream stream) {
  std::byte buffer[2048];
  for (;;) {
    auto n = co_await stream.read(buffer);
    if (!n.ok() || *n == 0) break;
    auto written = co_await stream.write(std::span<const std::byte>(buffer, *n));
    if (!written.ok()) break;
  }
  co_return stream.close();
}

async::Task<void> tcp_echo() {
  auto listener = net::TcpListener::listen(kTcpEchoPort, 4);
  if (!listener.ok()) co_return Unexpected(listener.error());
  async::Scope connections;
  for (;;) {
    auto stream = co_await listener->accept();
    if (!stream.ok()) co_return Unexpected(stream.error());
    (void)connections.spawn(tcp_echo_connection(std::move(*stream)));
  }
}

// What the pools hold between inputs.
struct Usage {
  std::size_t heap = 0;
  std::size_t pbufs = 0;
  std::size_t pool_pbufs = 0;
  std::size_t tcp_pcbs = 0;
  std::size_t listen_pcbs = 0;
  std::size_t udp_pcbs = 0;
  std::size_t segments = 0;
  std::size_t arp_queue = 0;
  std::size_t reassembly = 0;

  static Usage now() {
    return {
        .heap = lwip_stats.mem.used,
        .pbufs = lwip_stats.memp[MEMP_PBUF]->used,
        .pool_pbufs = lwip_stats.memp[MEMP_PBUF_POOL]->used,
        .tcp_pcbs = lwip_stats.memp[MEMP_TCP_PCB]->used,
        .listen_pcbs = lwip_stats.memp[MEMP_TCP_PCB_LISTEN]->used,
        .udp_pcbs = lwip_stats.memp[MEMP_UDP_PCB]->used,
        .segments = lwip_stats.memp[MEMP_TCP_SEG]->used,
        .arp_queue = lwip_stats.memp[MEMP_ARP_QUEUE]->used,
        .reassembly = lwip_stats.memp[MEMP_REASSDATA]->used,
    };
  }
};

void check_back_to(const Usage& baseline, const Usage& now) {
  check(now.heap == baseline.heap, "lwIP heap bytes");
  check(now.pbufs == baseline.pbufs, "PBUF_REF/ROM pbufs");
  check(now.pool_pbufs == baseline.pool_pbufs, "PBUF_POOL pbufs");
  check(now.tcp_pcbs == baseline.tcp_pcbs, "TCP PCBs");
  check(now.listen_pcbs == baseline.listen_pcbs, "listening PCBs");
  check(now.udp_pcbs == baseline.udp_pcbs, "UDP PCBs");
  check(now.segments == baseline.segments, "TCP segments");
  check(now.arp_queue == baseline.arp_queue, "ARP queue entries");
  check(now.reassembly == baseline.reassembly, "IP reassembly entries");
}

// Everything that lives for the whole fuzzing process: one executor, one NIC
// and netif, started once (lwIP's netif list is global).
struct Harness {
  Harness() : arena(8u << 20), frames(arena), use_frames(frames), netif(nic) {
    check(
        netif
            .start(net::IpConfig{
                .dhcp = false, .address = 0x0A00020F, .netmask = 0xFFFFFF00, .gateway = 0x0A000202})
            .ok(),
        "netif start");
    NETIF_SET_CHECKSUM_CTRL(netif.lwip_netif(), NETIF_CHECKSUM_GEN_IP | NETIF_CHECKSUM_GEN_UDP |
                                                    NETIF_CHECKSUM_GEN_TCP |
                                                    NETIF_CHECKSUM_GEN_ICMP);
    check(forever.spawn(netif.run()).ok(), "spawn netif");
    settle();
    release();
    baseline = Usage::now();
  }

  void settle() {
    for (int i = 0; i < kMaxPasses && executor.run_once(); ++i) {
    }
  }

  // Drops what lwIP keeps for peers of this input, then lets every task
  // that was woken by it finish.
  void release() {
    while (tcp_active_pcbs != nullptr) tcp_abort(tcp_active_pcbs);
    while (tcp_tw_pcbs != nullptr) tcp_abort(tcp_tw_pcbs);
    // Expiring a reassembly may send ICMP time exceeded, and an abort a
    // RST: both may wait in the ARP queue, so ARP is flushed last.
    for (int i = 0; i <= IP_REASS_MAXAGE; ++i) ip_reass_tmr();
    settle();
    etharp_cleanup_netif(netif.lwip_netif());
    settle();
    nic.sent.clear();
    nic.sent_fragments.clear();
  }

  std::vector<std::byte> arena;
  async::FrameAllocator frames;
  async::ScopedFrameAllocator use_frames;
  async::Executor executor;
  net::testing::FakeNic nic;
  Netif netif;
  async::Scope forever;
  Usage baseline;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Harness* harness = new Harness();
  Harness& h = *harness;

  {
    async::Scope services;
    check(services.spawn(udp_echo()).ok(), "spawn udp echo");
    check(services.spawn(tcp_echo()).ok(), "spawn tcp echo");
    h.settle();

    std::size_t frames = 0;
    while (size >= 2 && frames < kMaxFrames) {
      std::size_t length = (std::size_t{data[0]} << 8 | data[1]) % (kMaxFrameBytes + 1);
      data += 2;
      size -= 2;
      if (length > size) length = size;
      // The NIC's buffer, as DMA would have filled it; a NIC whose buffers
      // all sit in lwIP's queues drops the frame (counted by the NIC).
      (void)h.nic.inject(std::as_bytes(std::span(data, length)));
      h.nic.kick();
      data += length;
      size -= length;
      ++frames;
      h.settle();
      check(h.nic.with_stack() <= 64, "buffers with the stack");
    }
    services.cancel();
  }
  h.release();

  check(h.netif.rx_pool().in_use() == 0, "RX wrappers returned");
  check(h.nic.with_stack() == 0, "NIC buffers returned");
  check(tcp_active_pcbs == nullptr && tcp_tw_pcbs == nullptr, "no TCP connections");
  check_back_to(h.baseline, Usage::now());
  return 0;
}
