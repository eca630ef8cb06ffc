#include "net/udp/udp.h"

#include "kernel/async/executor.h"
#include "lwip/ip.h"
#include "lwip/ip_addr.h"
#include "lwip/netif.h"
#include "net/address/ip_address_lwip.h"
#include "net/port/lwip_error.h"

namespace starling::net {
namespace {

constexpr std::size_t kMaxPayload = 65535 - 20 - 8;

}  // namespace

std::size_t Pbuf::copy_to(std::span<std::byte> out, std::size_t offset) const noexcept {
  if (p_ == nullptr || offset >= p_->tot_len) return 0;
  const std::size_t want = out.size() < p_->tot_len - offset ? out.size() : p_->tot_len - offset;
  return pbuf_copy_partial(p_, out.data(), static_cast<u16_t>(want), static_cast<u16_t>(offset));
}

UdpSocket::~UdpSocket() {
  if (pcb_ != nullptr) udp_remove(pcb_);
  while (count_ != 0) pop();
}

Result<void> UdpSocket::bind(std::uint16_t port) noexcept {
  if (pcb_ != nullptr) return Unexpected(Error::kInvalidArgument);
  // One PCB for both families: datagrams to any IPv4 or IPv6 address of
  // the netif arrive here, and a reply leaves in the family it came in.
  udp_pcb* pcb = udp_new_ip_type(IPADDR_TYPE_ANY);
  if (pcb == nullptr) return Unexpected(Error::kNoMemory);
  if (const err_t err = udp_bind(pcb, IP_ANY_TYPE, port); err != ERR_OK) {
    udp_remove(pcb);
    return Unexpected(from_lwip_error(err));
  }
  udp_recv(pcb, &on_receive, this);
  pcb_ = pcb;
  return {};
}

std::uint16_t UdpSocket::local_port() const noexcept {
  return pcb_ == nullptr ? 0 : pcb_->local_port;
}

namespace {

// Whether the datagram lwIP is delivering was sent to this host's own
// address (not a broadcast, not a group). Valid while lwIP is inside
// udp_input. The common case first: an IPv4 datagram to the netif's
// address is unicast, without ip4_addr_isbroadcast()'s walk of the subnet
// rules (~40 instructions a datagram, and lwIP's udp_input has just made
// the same check its own way).
bool sent_to_us_alone() noexcept {
  const ip_addr_t* dest = ip_current_dest_addr();
  const struct netif* in = ip_current_netif();
  // (0.0.0.0, an address not yet bound, is broadcast to lwIP: not here.)
  if (IP_IS_V4(dest) && in != nullptr && !ip4_addr_isany(netif_ip4_addr(in)) &&
      ip4_addr_eq(ip_2_ip4(dest), netif_ip4_addr(in))) {
    return true;
  }
  return !ip_addr_isbroadcast(dest, in) && !ip_addr_ismulticast(dest);
}

}  // namespace

// lwIP context (the netif's run() task): queue, or drop when full.
void UdpSocket::on_receive(void* arg, udp_pcb* /*pcb*/, pbuf* p, const ip_addr_t* addr,
                           u16_t port) {
  auto& self = *static_cast<UdpSocket*>(arg);
  if (self.count_ == kQueueDepth) {
    ++self.stats_.dropped;
    pbuf_free(p);
    return;
  }
  Entry& e = self.queue_[(self.head_ + self.count_) % kQueueDepth];
  e.p = p;
  e.from = Endpoint{.address = from_lwip(*addr), .port = port};
  e.unicast = sent_to_us_alone();
  ++self.count_;
  ++self.stats_.received;
  self.wake_receiver();
}

void UdpSocket::wake_receiver() noexcept {
  if (count_ == reserved_) return;
  async::WaitNode* node = receivers_.pop_front();
  if (node == nullptr) return;
  reinterpret_cast<Receive*>(node)->handed_ = true;  // node is its first member
  ++reserved_;
  async::Executor::current().schedule(*node->waiter());
}

UdpSocket::Receive::~Receive() {
  if (node_.linked()) {
    socket_->receivers_.remove(node_);
  } else if (handed_) {
    // Woken, never ran (cancelled): the datagram goes to the next waiter.
    --socket_->reserved_;
    socket_->wake_receiver();
  }
}

Result<Datagram> UdpSocket::Receive::await_resume() noexcept {
  if (handed_) {
    handed_ = false;
    --socket_->reserved_;
    return socket_->pop();
  }
  if (socket_->pcb_ == nullptr) return Unexpected(Error::kNotFound);
  return socket_->pop();  // ready: an unreserved datagram is queued
}

Datagram UdpSocket::pop() noexcept {
  Entry& e = queue_[head_];
  Datagram d{.from = e.from, .data = Pbuf(e.p), .unicast = e.unicast};
  e.p = nullptr;
  head_ = (head_ + 1) % kQueueDepth;
  --count_;
  return d;
}

Result<Datagram> UdpSocket::try_receive_from() noexcept {
  if (pcb_ == nullptr) return Unexpected(Error::kNotFound);
  if (count_ == reserved_) return Unexpected(Error::kBusy);  // none, or all reserved
  return pop();
}

Result<void> UdpSocket::send_pbuf(const Endpoint& to, pbuf* p) noexcept {
  const ip_addr_t dst = to_lwip(to.address);
  // An IPv6 datagram lwIP will fragment leaves the NIC's checksum offload
  // (a fragment's checksum covers other frames), and IPv6 forbids the
  // checksum 0 IPv4 allows: lwIP computes it for this one send.
  struct netif* out = netif_default;
  const bool software_sum = to.address.is_v6() && out != nullptr &&
                            p->tot_len + 48u > netif_mtu6(out) &&
                            !NETIF_CHECKSUM_ENABLED(out, NETIF_CHECKSUM_GEN_UDP);
  if (software_sum) NETIF_SET_CHECKSUM_CTRL(out, out->chksum_flags | NETIF_CHECKSUM_GEN_UDP);
  const err_t err = udp_sendto(pcb_, p, &dst, to.port);
  if (software_sum) NETIF_SET_CHECKSUM_CTRL(out, out->chksum_flags & ~NETIF_CHECKSUM_GEN_UDP);
  if (err != ERR_OK) {
    ++stats_.send_errors;
    return Unexpected(from_lwip_error(err));
  }
  ++stats_.sent;
  return {};
}

Result<void> UdpSocket::send_to(const Endpoint& to, std::span<const std::byte> data) noexcept {
  if (pcb_ == nullptr || data.size() > kMaxPayload) return Unexpected(Error::kInvalidArgument);
  // No copy here: a PBUF_REF (a MEMP_PBUF header, no heap) points at the
  // caller's bytes. udp_sendto() chains a header pbuf in front (UDP, IP,
  // Ethernet), and linkoutput hands both to the driver as fragments: the
  // driver's copy into its DMA buffer is the only one. Safe because nothing
  // keeps the reference past this call: the driver copies before linkoutput
  // returns, a frame held for ARP resolution is cloned by lwIP first
  // (PBUF_REF is PBUF_NEEDS_COPY), and IP fragments are sent (copied)
  // before ip4_frag() returns.
  // An empty datagram is headers only: a plain pbuf with headroom (no
  // payload pointer to refer to).
  pbuf* p = pbuf_alloc(PBUF_TRANSPORT, static_cast<u16_t>(data.size()),
                       data.empty() ? PBUF_RAM : PBUF_REF);
  if (p == nullptr) {
    ++stats_.send_errors;
    return Unexpected(Error::kBusy);
  }
  // lwIP only reads a PBUF_REF's bytes (checksums, the driver's copy).
  if (!data.empty()) p->payload = const_cast<std::byte*>(data.data());
  auto sent = send_pbuf(to, p);
  pbuf_free(p);
  return sent;
}

Result<void> UdpSocket::send_to(const Endpoint& to, const Pbuf& data) noexcept {
  if (pcb_ == nullptr || data.get() == nullptr) return Unexpected(Error::kInvalidArgument);
  // A pbuf with room in front of its payload (a received frame copied into
  // PBUF_POOL, whose headers lwIP stripped, or one still in the NIC's
  // buffer, whose room_start says where its frame began: lwIP patch 0017)
  // gets the new UDP, IP and Ethernet headers written in place, over the
  // received ones, and lwIP leaves its payload pointing at them, sent or not. Put it back: the
  // datagram is the caller's, and a retry after kBusy would otherwise send the old headers as data.
  //
  // Moving it back is a change lwIP must not see in a frame it keeps: a
  // frame for a host whose hardware address is not yet resolved waits in
  // the ARP queue, and lwIP queues a reference to a PBUF_POOL pbuf, not a
  // copy, so the frame sent on the ARP reply started at the restored
  // payload (Ethernet header, then the datagram's bytes: no IP or UDP
  // header) and the first reply to every new peer was lost. For the call,
  // the pbuf is marked as what it is, data that changes once the call
  // returns (PBUF_TYPE_FLAG_DATA_VOLATILE, pbuf.h: "if this pbuf needs to
  // be queued, it must be copied"): lwIP then queues a PBUF_RAM copy
  // (etharp_query; nd6 does the same), only on that path. The NIC's own RX
  // buffers (custom PBUF_REF pbufs) carry the flag already.
  pbuf* p = data.get();
  const auto* payload = static_cast<const std::byte*>(p->payload);
  const u8_t type = p->type_internal;
  p->type_internal = static_cast<u8_t>(type | PBUF_TYPE_FLAG_DATA_VOLATILE);
  auto sent = send_pbuf(to, p);
  p->type_internal = type;
  const auto* now = static_cast<const std::byte*>(p->payload);
  if (now != payload) (void)pbuf_remove_header(p, static_cast<std::size_t>(payload - now));
  return sent;
}

}  // namespace starling::net
