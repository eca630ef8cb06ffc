#ifndef STARLING_NET_NETIF_NETIF_H_
#define STARLING_NET_NETIF_NETIF_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "kernel/async/deadline.h"
#include "kernel/async/executor.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/async/yield.h"
#include "kernel/hal/clock.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"
#include "kernel/wire/frame.h"
#include "lwip/dhcp.h"
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"  // tcp_txnow
#include "net/netif/address_conflict.h"
#include "net/netif/dns_servers.h"
#include "net/netif/frame_filter.h"
#include "net/netif/ip_config.h"
#include "net/netif/ipv6.h"
#include "net/netif/rx_pool.h"
#include "net/port/timers.h"
#include "netif/ethernet.h"

// The glue between a HAL NIC (the board's concrete driver type: direct
// calls, no virtual dispatch per frame) and an lwIP netif.
//
//   Netif<board::Nic> netif(*nic);
//   netif.start(config);              // lwip_init, netif_add, up; dhcp_start for ip=dhcp
//   scope.spawn(netif.run());         // RX, TX completions, link, lwIP's timers
//
// run() drains RX in batches of kRxBatch into ethernet_input (each frame a
// zero-copy custom pbuf from RxPbufPool, or a copy: see rx_pool.h), after
// classify_frame() has dropped runts and unjoined multicast (counted); it
// yields after every batch when another task is ready, so the hart is never
// kept from applications, retries TCP segments a full TX ring refused, runs
// lwIP's due timeouts, then sleeps in nic.wait_for_work() until lwIP's next
// timeout at the latest (one timer, re-armed only when that moves).
// Checksums: what the NIC computes on transmit (enable_tx_checksum_offload())
// lwIP leaves out, through its per-netif checksum control; a received
// frame the NIC vouched for (RxFrame::checksum_verified) skips lwIP's
// TCP/UDP check, every other frame gets it (input()).
// TX (linkoutput): a reply built on a received frame's buffer is sent from
// that buffer (send_in_place): with its headers already written over the
// received ones (lwIP patch 0017: the RX pool's pbufs carry room_start, so
// lwIP adds headers in place: a UDP echo), as it is; with a header pbuf
// chained in front (a frame whose room was too small), those bytes copied
// into place first. Otherwise the pbuf chain's pieces go as fragments to
// nic.transmit_gather(), whose copy into its DMA buffer is the only one (a
// PBUF_REF in the chain pointing at application memory is copied from
// there); no heap allocation. Only a chain of more than kMaxTxFragments
// non-empty pbufs (lwIP does not build those) is gathered into a scratch
// frame first (counted in tx_gathered). The driver copies before it
// returns, so no pbuf is held past linkoutput. A full TX ring drops the
// frame (counted, ERR_WOULDBLOCK to lwIP: a UDP sender sees kBusy; TCP keeps the
// segment, and run() has lwIP send it again once the ring has room).
namespace starling::net {

// lwip_init() once per image (the first netif start()s it).
void ensure_lwip_initialized();

struct NetifStats {
  std::uint64_t rx_frames = 0;  // frames given to ethernet_input
  std::uint64_t rx_batches = 0;
  std::uint64_t tx_frames = 0;
  std::uint64_t tx_chained = 0;      // frames of several pbufs sent as fragments (no extra copy)
  std::uint64_t tx_gathered = 0;     // chains > kMaxTxFragments copied into the scratch frame first
  std::uint64_t tx_busy_drops = 0;   // TX ring full: frame dropped
  std::uint64_t tx_errors = 0;       // transmit() refused the frame otherwise
  std::uint64_t wakeups = 0;         // wait_for_work() returned (work or spurious)
  std::uint64_t timer_wakeups = 0;   // ... or lwIP's next timeout came first
  std::uint64_t wait_no_memory = 0;  // no frame to wait in: slept 1 ms, went on
  // Dropped before lwIP (frame_filter.h).
  std::uint64_t rx_runts = 0;             // shorter than their ARP/IPv4/IPv6 header says
  std::uint64_t rx_bad_header = 0;        // IPv4 version/IHL or IPv6 version impossible
  std::uint64_t rx_multicast = 0;         // to a group not joined
  std::uint64_t rx_long_chain = 0;        // IPv6 extension headers past the bound
  std::uint64_t yields = 0;               // gave the hart to other ready tasks
  std::uint64_t tx_retries = 0;           // TCP segments refused by a full ring retried (tcp_txnow)
  std::uint64_t rx_checksum_trusted = 0;  // NIC-vouched frames: lwIP's TCP/UDP check skipped
  std::uint64_t tx_in_place = 0;          // replies sent from the RX buffer they answer
};

template <hal::Nic N, std::size_t kRxPoolSize = 256>
class Netif {
 public:
  static constexpr std::size_t kRxBatch = 32;
  // Fragments linkoutput hands the driver without a staging copy.
  static constexpr std::size_t kMaxTxFragments = 16;
  static constexpr std::uint16_t kMtu = 1500;
  // The longest run() sleeps with no lwIP timeout pending.
  static constexpr std::uint64_t kMaxIdleNs = 1000 * async::kMillisecond;

  explicit Netif(N& nic) noexcept : nic_(&nic), pool_(nic) {}
  Netif(const Netif&) = delete;
  Netif& operator=(const Netif&) = delete;

  // `ip6`: IPv6's addresses (ip6= on the command line; SLAAC by default).
  Result<void> start(const IpConfig& config, const Ip6Config& ip6 = Ip6Config{}) noexcept {
    ensure_lwip_initialized();
    ip4_addr_t address;
    ip4_addr_t netmask;
    ip4_addr_t gateway;
    ip4_addr_set_u32(&address, config.dhcp ? 0 : lwip_htonl(config.address));
    ip4_addr_set_u32(&netmask, config.dhcp ? 0 : lwip_htonl(config.netmask));
    ip4_addr_set_u32(&gateway, config.dhcp ? 0 : lwip_htonl(config.gateway));
    if (netif_add(&netif_, &address, &netmask, &gateway, this, &init_function, &ethernet_input) ==
        nullptr) {
      return Unexpected(Error::kDeviceError);
    }
    netif_set_default(&netif_);
    start_ipv6(&netif_, ip6);
    watch_dns_servers();
    netif_set_up(&netif_);
    dhcp_ = config.dhcp;
    sync_link();
    if (dhcp_) {
      if (dhcp_start(&netif_) != ERR_OK) return Unexpected(Error::kNoMemory);
      report_dhcp_conflicts(&netif_);
    }
    return {};
  }

  // Serves the NIC until it fails (a device that cannot be reset).
  async::Task<void> run() noexcept {
    // lwIP's next timeout, for the waits below; in this frame, so it is
    // disarmed whenever the task ends or is cancelled.
    async::Deadline wake;
    for (;;) {
      std::size_t n = 0;
      do {
        n = nic_->receive(batch_);
        if (n != 0) ++stats_.rx_batches;
        for (std::size_t i = 0; i < n; ++i) {
          if (!admit(batch_[i].data)) {
            (void)nic_->release(batch_[i].handle);
            continue;
          }
          pbuf* p = pool_.wrap(batch_[i]);
          if (p == nullptr) continue;  // counted by the pool
          ++stats_.rx_frames;
          input(p, batch_[i]);
        }
        // A full batch: more may be waiting, but others get the hart first.
        // A short one: no yield here; the wait below suspends anyway, and
        // the tasks this batch woke run in the same executor pass (a yield
        // per packet cost an extra pass and a ring poll, ~150 instructions).
        if (n == kRxBatch && async::Executor::current().should_yield()) {
          ++stats_.yields;
          co_await async::yield();
        }
      } while (n == kRxBatch);
      if (tx_blocked_) {
        // lwIP keeps a TCP segment the full ring refused (TF_NAGLEMEMERR)
        // and sends it on that connection's next tcp_output(), which may
        // never come: with nothing in flight no retransmission timer runs,
        // and the peer waits for it. Retry them now (lwIP leaves this to
        // the driver: tcp_txnow). Still full: they are refused again, and
        // wait_for_work() sleeps until the ring has room.
        tx_blocked_ = false;
        ++stats_.tx_retries;
        tcp_txnow();
      }
      sync_link();
      const std::uint64_t now = hal::now_ns();
      run_due_timers(now);  // also frees out-of-order queues if PBUF_POOL ran dry
      // One wake-up timer for lwIP's next timeout, kept armed across
      // receives while that does not move (a timer inserted and removed
      // per wait cost ~70 instructions a packet). The same clock reading:
      // what the timeouts did is done by now.
      wake.set(next_timer_deadline_ns(now, kMaxIdleNs));
      async::Executor& executor = async::Executor::current();
      const std::uint64_t run = executor.run_sequence();
      auto woke = co_await wake.bound(nic_->wait_for_work());
      if (woke.ok()) {
        ++stats_.wakeups;
        // A wait that returned at once (work, or a spurious wake) must not
        // let this loop keep the hart either. One that slept gave the hart
        // up already (the executor resumed it: a new run), so it skips the
        // look, ~35 instructions a wake-up.
        if (executor.run_sequence() == run && executor.should_yield()) {
          ++stats_.yields;
          co_await async::yield();
        }
      } else if (woke.error() == Error::kTimedOut) {
        ++stats_.timer_wakeups;
      } else if (woke.error() == Error::kNoMemory) {
        // No frame for the wait (the arena was full for a moment): the NIC
        // is fine, so keep serving it; sleep_for needs no frame.
        ++stats_.wait_no_memory;
        co_await async::sleep_for(async::kMillisecond);
      } else {
        co_return Unexpected(woke.error());
      }
    }
  }

  // The address in use (host order); 0 until DHCP has bound one.
  std::uint32_t address() const noexcept {
    return lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(&netif_)));
  }
  std::uint32_t netmask() const noexcept {
    return lwip_ntohl(ip4_addr_get_u32(netif_ip4_netmask(&netif_)));
  }
  std::uint32_t gateway() const noexcept {
    return lwip_ntohl(ip4_addr_get_u32(netif_ip4_gw(&netif_)));
  }
  bool dhcp() const noexcept { return dhcp_; }

  // Waits (polling lwIP's state every 20 ms, bounded by with_timeout from
  // the caller) until the netif has an address: at once for a static one.
  async::Task<std::uint32_t> wait_for_address() noexcept {
    while (address() == 0) co_await async::sleep_for(20 * async::kMillisecond);
    co_return address();
  }

  struct netif* lwip_netif() noexcept { return &netif_; }
  N& nic() noexcept { return *nic_; }
  const NetifStats& stats() const noexcept { return stats_; }
  const auto& rx_pool() const noexcept { return pool_; }

 private:
  static Netif& self(struct netif* n) noexcept { return *static_cast<Netif*>(n->state); }

  // lwIP processes a frame synchronously, so the per-netif checksum flags
  // in force during netif_.input() apply to that frame alone: a frame the
  // device vouched for is input with lwIP's TCP/UDP checks off, every other
  // frame with them on (lwIP checks it and drops a bad one). Not for an IP
  // fragment: the reassembled datagram's checksum covers frames the device
  // said nothing about.
  void input(pbuf* p, const hal::RxFrame& frame) noexcept {
    constexpr std::uint16_t kTrustedChecks = NETIF_CHECKSUM_CHECK_UDP | NETIF_CHECKSUM_CHECK_TCP;
    const std::uint16_t flags = netif_.chksum_flags;  // what init_function set
    const bool trusted = frame.checksum_verified && !wire::is_ipv4_fragment(frame.data);
    if (trusted) {
      ++stats_.rx_checksum_trusted;
      NETIF_SET_CHECKSUM_CTRL(&netif_, flags & ~kTrustedChecks);
    }
    if (netif_.input(p, &netif_) != ERR_OK) pbuf_free(p);
    if (trusted) NETIF_SET_CHECKSUM_CTRL(&netif_, flags);
  }

  bool admit(std::span<const std::byte> frame) noexcept {
    switch (classify_frame(frame, joined_)) {
      case FrameVerdict::kPass:
        return true;
      case FrameVerdict::kArp:
        // A look for another host using our address first.
        note_arp_frame(&netif_, frame);
        return true;
      case FrameVerdict::kRuntArp:
      case FrameVerdict::kRuntIpv4:
      case FrameVerdict::kRuntIpv6:
        ++stats_.rx_runts;
        return false;
      case FrameVerdict::kBadIpv4Header:
      case FrameVerdict::kBadIpv6Header:
        ++stats_.rx_bad_header;
        return false;
      case FrameVerdict::kLongIpv6Chain:
        ++stats_.rx_long_chain;
        return false;
      case FrameVerdict::kMulticast:
        ++stats_.rx_multicast;
        return false;
    }
    return false;
  }

  static err_t mld_mac_filter(struct netif* n, const ip6_addr_t* group,
                              enum netif_mac_filter_action action) noexcept {
    Netif& me = self(n);
    const err_t err = update_joined_groups(me.joined_, group, action);
    me.program_multicast_groups();
    return err;
  }

  // The joined groups to the NIC's own filter (the DWMAC's hash table;
  // virtio-net has none): the frame filter still drops what a coarse
  // hardware filter lets through.
  void program_multicast_groups() noexcept {
    std::array<hal::MacAddress, JoinedGroups::kMax> groups{};
    std::size_t n = 0;
    for (const JoinedGroups::Mac& mac : joined_.macs()) {
      std::copy(mac.begin(), mac.end(), groups[n++].bytes.begin());
    }
    if constexpr (hal::NicFiltersMulticast<N>) {
      nic_->set_multicast_groups(std::span<const hal::MacAddress>(groups.data(), n));
    }
  }

  static err_t init_function(struct netif* n) noexcept {
    Netif& me = self(n);
    n->name[0] = 'e';
    n->name[1] = 'n';
    n->mtu = kMtu;
    n->hwaddr_len = ETH_HWADDR_LEN;
    const hal::MacAddress mac = me.nic_->mac();
    std::memcpy(n->hwaddr, mac.bytes.data(), ETH_HWADDR_LEN);
    n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET | NETIF_FLAG_MLD6;
    n->output = &etharp_output;
    n->output_ip6 = &ethip6_output;
    n->linkoutput = &link_output;
    // The groups IPv6 joins pass the frame filter; all-nodes from the start.
    (void)me.joined_.add(all_nodes_mac());
    me.program_multicast_groups();
    netif_set_mld_mac_filter(n, &mld_mac_filter);
    // What the NIC computes on transmit, lwIP leaves out; it checks
    // everything it receives unless input() says otherwise.
    hal::TxChecksumOffload tx{};  // a NIC without the capability computes none
    if constexpr (hal::NicOffloadsTxChecksums<N>) tx = me.nic_->enable_tx_checksum_offload();
    std::uint16_t flags = NETIF_CHECKSUM_ENABLE_ALL;
    if (tx.ipv4_header) flags &= ~NETIF_CHECKSUM_GEN_IP;
    if (tx.udp) flags &= ~NETIF_CHECKSUM_GEN_UDP;
    if (tx.tcp) flags &= ~NETIF_CHECKSUM_GEN_TCP;
    if (tx.icmp) flags &= ~NETIF_CHECKSUM_GEN_ICMP;
    NETIF_SET_CHECKSUM_CTRL(n, flags);
    return ERR_OK;
  }

  // A reply that is headers in front of a received frame's bytes (a UDP
  // echo sending a datagram back: lwIP chains its header pbuf to the RX
  // pbuf) goes out from the RX buffer itself: the headers are written over
  // the received ones just before the payload, and the driver sends the
  // buffer without copying the payload (hal::Nic::transmit_in_place). The
  // Datagram still owns the buffer; the driver keeps it from the RX ring
  // until the device has sent it. kNotFound: not such a frame, send it
  // the usual way.
  Result<void> send_in_place(const pbuf* p) noexcept {
    if constexpr (!hal::NicSendsInPlace<N>) {
      (void)p;
      return Unexpected(Error::kNotFound);  // the usual way: transmit_gather
    } else {
      // The received frame the reply is built on: the one pbuf, its headers
      // already written over the received ones (lwIP patch 0017), or the
      // payload behind a header pbuf (a room too small for lwIP to take),
      // whose bytes are copied into place first.
      // Or a TCP segment's bytes that net/tcp refers to inside a received
      // buffer (in_buffer_of, lwipopts.h): its header pbuf's bytes go into
      // the room in front of them, which is spent then (set to none), so
      // a retransmission, whose header would overwrite a frame the NIC may
      // still be reading, is copied.
      pbuf* received = p->next == nullptr ? const_cast<pbuf*>(p) : p->next;
      if (received->next != nullptr) return Unexpected(Error::kNotFound);
      const pbuf* buffer = received->in_buffer_of != nullptr ? received->in_buffer_of : received;
      const auto* origin = pool_.origin(buffer);
      if (origin == nullptr) return Unexpected(Error::kNotFound);
      auto* at = static_cast<std::byte*>(received->payload);
      const std::byte* room = origin->frame_start;
      if (received != buffer) {
        if (received->room_start == nullptr) return Unexpected(Error::kNotFound);
        room = reinterpret_cast<const std::byte*>(received->room_start);
      }
      // Before the room's start wraps to a huge headroom: refused too.
      const auto headroom = static_cast<std::size_t>(at - room);
      if (headroom > hal::kMaxFrameBytes) return Unexpected(Error::kNotFound);
      std::size_t length = received->len;
      if (received != p) {
        if (p->len == 0 || p->len > headroom) return Unexpected(Error::kNotFound);
        at -= p->len;
        std::memcpy(at, p->payload, p->len);
        length += p->len;
      }
      const hal::RxFrame frame{.data = std::span(at, length), .handle = origin->handle};
      auto sent = nic_->transmit_in_place(std::span(&frame, 1));
      if (!sent.ok()) return Unexpected(sent.error());
      if (received != buffer) received->room_start = nullptr;  // the NIC may read it: spent
      ++stats_.tx_in_place;
      return {};
    }
  }

  // What lwIP hears of a frame the NIC took or refused: a full ring blocks
  // TCP output until it drains (tx_blocked_), anything else is the
  // interface's error.
  err_t transmit_outcome(const Result<void>& sent) noexcept {
    if (sent.ok()) {
      ++stats_.tx_frames;
      return ERR_OK;
    }
    if (sent.error() == Error::kBusy) {
      ++stats_.tx_busy_drops;
      tx_blocked_ = true;
      return ERR_WOULDBLOCK;
    }
    ++stats_.tx_errors;
    return ERR_IF;
  }

  static err_t link_output(struct netif* n, pbuf* p) noexcept {
    Netif& me = self(n);
    // In place, or a full ring: final. Any other refusal (not a reply to an
    // RX buffer, a loan the driver cannot make) goes the gather way.
    if (auto sent = me.send_in_place(p); sent.ok() || sent.error() == Error::kBusy) {
      return me.transmit_outcome(sent);
    }
    // Not zeroed first (-ftrivial-auto-var-init): only the `count` entries
    // written below are read, and zeroing all 256 bytes cost ~130
    // instructions a frame (docs/toolchain.md, "Hardening").
    [[clang::uninitialized]] std::array<hal::TxFragment, kMaxTxFragments> fragments;
    std::size_t count = 0;
    bool fits = true;
    for (const pbuf* q = p; q != nullptr; q = q->next) {
      if (q->len == 0) continue;
      if (count == fragments.size()) {
        fits = false;
        break;
      }
      fragments[count++] = {static_cast<const std::byte*>(q->payload), q->len};
    }
    if (!fits) {
      // Rare: a long chain is staged first (a second copy).
      if (p->tot_len > me.scratch_.size()) {
        ++me.stats_.tx_errors;
        return ERR_BUF;
      }
      const u16_t copied = pbuf_copy_partial(p, me.scratch_.data(), p->tot_len, 0);
      fragments[0] = {me.scratch_.data(), copied};
      count = 1;
      ++me.stats_.tx_gathered;
    } else if (count > 1) {
      ++me.stats_.tx_chained;
    }
    return me.transmit_outcome(
        me.nic_->transmit_gather(std::span<const hal::TxFragment>(fragments.data(), count)));
  }

  // The gateway's MAC, asked for as the link comes up (after the
  // gratuitous ARP lwIP sends), not when the first answer to it is due:
  // every client behind it is then answered at once. Otherwise the first
  // burst of SYN|ACKs waits on the ARP reply (QEMU's user networking, all
  // of whose clients are its gateway, opened 16 at once: the HTTP tail of
  // issue 27). A DHCP lease's gateway is resolved by its first use.
  void ask_for_gateway() noexcept {
    const ip4_addr_t* gateway = netif_ip4_gw(&netif_);
    if (!ip4_addr_isany(gateway)) (void)etharp_request(&netif_, gateway);
  }

  void sync_link() noexcept {
    const bool up = nic_->link() == hal::LinkState::kUp;
    if (up && !netif_is_link_up(&netif_)) {
      netif_set_link_up(&netif_);
      ask_for_gateway();
      // Probed on every plug-in: the link may now reach another host with
      // the same address (address_conflict.h). lwIP stops the probe when
      // the link goes down; a DHCP lease is probed by the DHCP client.
      if (!dhcp_) check_static_address(&netif_, *netif_ip4_addr(&netif_));
    } else if (!up && netif_is_link_up(&netif_)) {
      netif_set_link_down(&netif_);
    }
  }

  N* nic_;
  struct netif netif_{};
  RxPbufPool<N, kRxPoolSize> pool_;
  std::array<hal::RxFrame, kRxBatch> batch_{};
  alignas(8) std::array<std::byte, hal::kMaxFrameBytes> scratch_{};
  NetifStats stats_;
  JoinedGroups joined_;  // IPv6's groups, for the frame filter
  bool dhcp_ = false;
  bool tx_blocked_ = false;  // a frame was refused for a full TX ring
};

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_NETIF_H_
