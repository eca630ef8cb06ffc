#ifndef STARLING_NET_NETIF_RX_POOL_H_
#define STARLING_NET_NETIF_RX_POOL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernel/hal/nic.h"
#include "lwip/pbuf.h"

// Zero-copy RX: each received frame becomes an lwIP custom pbuf (PBUF_REF)
// whose payload is the driver's own DMA buffer. The pbuf_custom wrappers
// come from a fixed pool (no heap per packet); when lwIP (or an application
// holding a datagram) frees the pbuf, the free function gives the buffer
// back to the driver with nic.release(handle) and the wrapper to the pool.
// An empty pool means the frame is released at once and counted.
//
// What a peer can pin is bounded here (issue 12). A frame of at most
// kCopyBreak bytes (an ACK, a one-byte segment, a small datagram) is copied
// into a PBUF_POOL pbuf and its DMA buffer goes straight back to the ring:
// small frames cannot hold 2 KiB buffers. And once the stack holds
// kZeroCopyLimit buffers, every frame is copied the same way, so at least
// kCapacity - kZeroCopyLimit buffers are always with the device, whoever
// holds the rest: the guest keeps receiving (ARP, SYNs, other peers) while
// one connection sits on its data. A frame that must be copied when
// PBUF_POOL is empty is dropped and counted (lwIP then frees out-of-order
// queues, PBUF_POOL_FREE_OOSEQ). The copy of a small frame costs less than
// the custom pbuf it replaces; the limit costs a copy only under pressure.
//
// PBUF_REF rather than PBUF_RAM for the zero-copy frames: lwIP never writes
// headers in front of a PBUF_REF's payload (icmp/udp replies chain their own
// header pbuf) and never mem_trim()s it, so nothing outside the frame is
// touched. The netif does, on purpose, when it sends such a reply from the
// RX buffer itself (Netif::send_in_place): origin() tells it where the
// frame began, so the headers it writes stay inside the received frame. A copied frame is a
// PBUF_POOL pbuf whose stripped headers leave room in front, which lwIP does write into: net/udp's
// send_to(Pbuf) puts the payload back afterwards.
namespace starling::net {

template <typename N, std::size_t kSize>
class RxPbufPool {
 public:
  static constexpr std::size_t kCapacity = kSize;
  // Frames this short are always copied (Linux drivers' rx_copybreak).
  static constexpr std::size_t kCopyBreak = 256;
  // Buffers the stack may hold zero-copy; past it every frame is copied.
  static constexpr std::size_t kZeroCopyLimit = kSize - kSize / 4;

  struct Stats {
    std::uint64_t wrapped = 0;          // frames handed to lwIP as pbufs
    std::uint64_t exhausted = 0;        // frames dropped: no free wrapper
    std::uint64_t too_long = 0;         // frames dropped: longer than a pbuf can say
    std::uint64_t returned = 0;         // pbufs freed, buffers given back
    std::uint64_t release_errors = 0;   // nic.release() refused a handle
    std::size_t max_in_use = 0;         // most wrappers (driver buffers) the stack held at once
    std::uint64_t copied_small = 0;     // frames <= kCopyBreak copied, buffer back at once
    std::uint64_t copied_pressure = 0;  // frames copied because kZeroCopyLimit buffers were held
    std::uint64_t copy_failed = 0;      // frames dropped: to be copied, but PBUF_POOL was empty
  };

  explicit RxPbufPool(N& nic) noexcept : nic_(&nic) {
    for (std::size_t i = 0; i < kSize; ++i) {
      wrappers_[i].pool = this;
      wrappers_[i].next = i + 1 < kSize ? &wrappers_[i + 1] : nullptr;
    }
    free_ = &wrappers_[0];
  }
  RxPbufPool(const RxPbufPool&) = delete;
  RxPbufPool& operator=(const RxPbufPool&) = delete;

  // The frame as a pbuf lwIP owns from now on, or nullptr (the frame has
  // been released to the driver and counted).
  pbuf* wrap(const hal::RxFrame& frame) noexcept {
    if (frame.data.size() > 0xFFFF) {
      ++stats_.too_long;
      (void)nic_->release(frame.handle);
      return nullptr;
    }
    const bool small = frame.data.size() <= kCopyBreak;
    if (small || in_use_ >= kZeroCopyLimit) {
      pbuf* copy = copy_out(frame);
      if (copy != nullptr) {
        ++(small ? stats_.copied_small : stats_.copied_pressure);
        return copy;
      }
      if (in_use_ >= kZeroCopyLimit) {  // under pressure: never pin another buffer
        ++stats_.copy_failed;
        (void)nic_->release(frame.handle);
        return nullptr;
      }
      // A small frame with PBUF_POOL empty, below the limit: zero-copy.
    }
    Wrapper* w = free_;
    if (w == nullptr) {
      ++stats_.exhausted;
      (void)nic_->release(frame.handle);
      return nullptr;
    }
    free_ = w->next;
    ++in_use_;
    if (in_use_ > stats_.max_in_use) stats_.max_in_use = in_use_;
    w->next = nullptr;
    w->in_use = true;
    w->origin = {.frame_start = frame.data.data(), .handle = frame.handle};
    w->custom.custom_free_function = &free_function;
    const auto length = static_cast<u16_t>(frame.data.size());
    pbuf* p =
        pbuf_alloced_custom(PBUF_RAW, length, PBUF_REF, &w->custom, frame.data.data(), length);
    // The frame's own bytes: headers lwIP strips stay the pbuf's, and a
    // reply's headers may take their place (lwIP patch 0017, lwipopts.h).
    if (p != nullptr) p->room_start = reinterpret_cast<u8_t*>(frame.data.data());
    ++stats_.wrapped;
    return p;
  }

  // The received frame `p` wraps (where it began in the driver's buffer,
  // and its handle), if `p` is one of this pool's zero-copy pbufs; nullptr
  // for any other pbuf (copied frames, lwIP's own, an application's).
  struct Origin {
    std::byte* frame_start;
    hal::RxHandle handle;
  };
  const Origin* origin(const pbuf* p) const noexcept {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const auto first = reinterpret_cast<std::uintptr_t>(wrappers_.data());
    if (at < first || at >= first + sizeof wrappers_) return nullptr;
    const Wrapper& w = wrappers_[(at - first) / sizeof(Wrapper)];
    if (reinterpret_cast<std::uintptr_t>(&w.custom.pbuf) != at || !w.in_use) return nullptr;
    return &w.origin;
  }

  std::size_t in_use() const noexcept { return in_use_; }
  std::size_t available() const noexcept { return kSize - in_use_; }
  const Stats& stats() const noexcept { return stats_; }

 private:
  // The frame in PBUF_POOL memory, its buffer released; nullptr (buffer
  // still held) if the pool is empty.
  pbuf* copy_out(const hal::RxFrame& frame) noexcept {
    const auto length = static_cast<u16_t>(frame.data.size());
    pbuf* p = pbuf_alloc(PBUF_RAW, length, PBUF_POOL);
    if (p == nullptr) return nullptr;
    (void)pbuf_take(p, frame.data.data(), length);
    if (!nic_->release(frame.handle).ok()) ++stats_.release_errors;
    return p;
  }

  struct Wrapper {
    pbuf_custom custom;  // first: lwIP's pbuf* is the wrapper's address
    RxPbufPool* pool = nullptr;
    Wrapper* next = nullptr;
    Origin origin{nullptr, 0};
    bool in_use = false;
  };
  static_assert(std::is_standard_layout_v<Wrapper>);

  static void free_function(pbuf* p) noexcept {
    auto* w = reinterpret_cast<Wrapper*>(p);
    w->pool->give_back(w);
  }
  void give_back(Wrapper* w) noexcept {
    if (!nic_->release(w->origin.handle).ok()) ++stats_.release_errors;
    w->in_use = false;
    ++stats_.returned;
    w->next = free_;
    free_ = w;
    --in_use_;
  }

  N* nic_;
  std::array<Wrapper, kSize> wrappers_{};
  Wrapper* free_ = nullptr;
  std::size_t in_use_ = 0;
  Stats stats_;
};

}  // namespace starling::net

#endif  // STARLING_NET_NETIF_RX_POOL_H_
