#ifndef STARLING_NET_UDP_UDP_H_
#define STARLING_NET_UDP_UDP_H_

#include <array>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "kernel/async/promise.h"
#include "kernel/async/wait_list.h"
#include "kernel/lib/result.h"
#include "lwip/pbuf.h"
#include "lwip/udp.h"
#include "net/address/endpoint.h"

// Coroutine UDP sockets over lwIP's raw udp_pcb; no callbacks reach the
// application.
//
//   UdpSocket sock;
//   if (auto ok = sock.bind(1235); !ok) ...
//   for (;;) {
//     auto d = co_await sock.receive_from();                 // Result<Datagram>
//     auto d = co_await with_timeout(sock.receive_from(), 5 * kMillisecond);
//     (void)sock.send_to(d->from, d->data);                  // echo it back
//   }
//
// A datagram owns its pbuf (zero copy: on the NIC's own RX buffer, which goes
// back to the driver when the Datagram is destroyed). Each socket queues at
// most kQueueDepth datagrams; more are dropped and counted. Waits are
// cancellable (with_timeout, Scope::cancel): a cancelled receive_from()
// unlinks itself and takes nothing from the queue. receive_from() is an
// awaiter, not a task (no frame per datagram), and a CancellableWait
// (kernel/async/cancellable_wait.h): with_timeout bounds it in place.
namespace starling::net {

// An owning pbuf reference (pbuf_free on destruction).
class Pbuf {
 public:
  Pbuf() noexcept = default;
  explicit Pbuf(pbuf* p) noexcept : p_(p) {}
  Pbuf(Pbuf&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
  Pbuf& operator=(Pbuf&& other) noexcept {
    if (this != &other) {
      reset();
      p_ = std::exchange(other.p_, nullptr);
    }
    return *this;
  }
  Pbuf(const Pbuf&) = delete;
  Pbuf& operator=(const Pbuf&) = delete;
  ~Pbuf() { reset(); }

  void reset() noexcept {
    if (p_ != nullptr) pbuf_free(std::exchange(p_, nullptr));
  }
  pbuf* get() const noexcept { return p_; }
  pbuf* release() noexcept { return std::exchange(p_, nullptr); }
  std::size_t size() const noexcept { return p_ == nullptr ? 0 : p_->tot_len; }
  // The bytes, when they are in one piece (always for a datagram that was
  // not reassembled from IP fragments); empty otherwise.
  std::span<const std::byte> contiguous() const noexcept {
    if (p_ == nullptr || p_->len != p_->tot_len) return {};
    return {static_cast<const std::byte*>(p_->payload), p_->len};
  }
  // Copies up to out.size() bytes from `offset`; how many.
  std::size_t copy_to(std::span<std::byte> out, std::size_t offset = 0) const noexcept;

 private:
  pbuf* p_ = nullptr;
};

struct Datagram {
  Endpoint from;
  Pbuf data;
  // False for a datagram sent to a broadcast address (255.255.255.255 or the
  // subnet's): a service that answers every datagram (echo) must not answer
  // those, or one spoofed packet is a reply from every host on the LAN.
  // (Multicast never gets this far: net/netif/frame_filter.h.)
  bool unicast = true;
};

struct UdpStats {
  std::uint64_t received = 0;  // datagrams queued
  std::uint64_t dropped = 0;   // datagrams dropped: queue full
  std::uint64_t sent = 0;
  std::uint64_t send_errors = 0;
};

class UdpSocket {
 public:
  static constexpr std::size_t kQueueDepth = 64;

  UdpSocket() noexcept = default;
  ~UdpSocket();
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;

  // Binds to `port` on every local address (0: an ephemeral port).
  // kBusy: the port is taken; kNoMemory: no udp_pcb left; kInvalidArgument:
  // already bound.
  Result<void> bind(std::uint16_t port) noexcept;
  std::uint16_t local_port() const noexcept;

  // co_await receive_from(): the next datagram (Result<Datagram>), waiting
  // for one if the queue is empty. kNotFound if the socket is not bound.
  //
  // A datagram arriving wakes the first waiting receiver and is set aside
  // for it (reserved) until it runs, so a receiver that starts meanwhile
  // cannot take it and leave the woken one with nothing; one woken and
  // then cancelled before it ran passes its datagram to the next waiter.
  class [[nodiscard]] Receive {
   public:
    static constexpr bool kCancellableWait = true;

    explicit Receive(UdpSocket& socket) noexcept : socket_(&socket) {}
    Receive(Receive&& other) noexcept : node_(std::move(other.node_)), socket_(other.socket_) {}
    ~Receive();
    bool await_ready() const noexcept {
      return socket_->pcb_ == nullptr || socket_->count_ > socket_->reserved_;
    }
    template <async::TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      node_.set_waiter(task.promise());
      socket_->receivers_.push_back(node_);
    }
    Result<Datagram> await_resume() noexcept;

   private:
    friend class UdpSocket;
    async::WaitNode node_;  // first: wake_receiver() casts it back
    UdpSocket* socket_;
    bool handed_ = false;  // woken with a datagram reserved for it
  };
  Receive receive_from() noexcept { return Receive(*this); }
  // A queued datagram without waiting, or kBusy if there is none.
  Result<Datagram> try_receive_from() noexcept;

  // Sends `data` with one copy, the driver's into its DMA buffer: a
  // PBUF_REF points at `data` and the frame goes out as fragments (headers,
  // then `data`) before this returns, so `data` is free again at once. (A
  // frame waiting for ARP is copied by lwIP first: a second copy, only then.)
  // kBusy: the TX ring is full, kNoMemory: no pbuf (both: try again later);
  // kInvalidArgument: too long (> 65507) or unbound; kNotFound: no route.
  Result<void> send_to(const Endpoint& to, std::span<const std::byte> data) noexcept;
  // Sends a pbuf's bytes as they are (e.g. a received datagram back).
  Result<void> send_to(const Endpoint& to, const Pbuf& data) noexcept;

  std::size_t queued() const noexcept { return count_; }
  const UdpStats& stats() const noexcept { return stats_; }

 private:
  static void on_receive(void* arg, udp_pcb* pcb, pbuf* p, const ip_addr_t* addr, u16_t port);
  Result<void> send_pbuf(const Endpoint& to, pbuf* p) noexcept;
  Datagram pop() noexcept;
  // A datagram not reserved and a receiver waiting: reserve it, wake it.
  void wake_receiver() noexcept;

  struct Entry {
    pbuf* p = nullptr;
    Endpoint from;
    bool unicast = true;
  };
  udp_pcb* pcb_ = nullptr;
  std::array<Entry, kQueueDepth> queue_{};
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::size_t reserved_ = 0;  // queued datagrams set aside for woken receivers
  async::WaitList receivers_;
  UdpStats stats_;
};

static_assert(std::is_standard_layout_v<UdpSocket::Receive>);  // wake_receiver() casts node_

}  // namespace starling::net

#endif  // STARLING_NET_UDP_UDP_H_
