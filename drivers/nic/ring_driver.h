#ifndef STARLING_DRIVERS_NIC_RING_DRIVER_H_
#define STARLING_DRIVERS_NIC_RING_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"

// The transmit and release rules of kernel/hal/nic.h, written once for every
// NIC driver with a TX ring and RX buffers it lends to the stack. What
// differs between devices (descriptor formats, doorbells, how a slot is
// found) stays in the driver, behind these operations, which the driver
// defines (privately, with `friend class nic::RingDriver<Driver>;`):
//
//   void reclaim_tx();            take back the TX slots the device finished
//   bool tx_full() const;         no TX slot is free (after reclaim_tx)
//   void fill_tx(std::span<const hal::TxFragment>, std::uint32_t bytes);
//                                 one frame of `bytes` (checked to fit) into
//                                 the next free slot, posted to the ring but
//                                 not yet shown to the device
//   void start_tx();              show the posted frames to the device (tail
//                                 pointer write, queue notification)
//   bool rx_held(hal::RxHandle) const;  the buffer is out with the stack
//   void repost_rx(hal::RxHandle);      back to the device's free buffers
//   void publish_rx();            show the reposted buffers to the device
//   hal::NicStats& nic_stats();
//
// Batches are the point: a transmit() of many frames starts the device once,
// a release() of many handles publishes once.
namespace starling::nic {

// Copies a frame's fragments back to back to `to`; returns the end.
inline std::byte* copy_fragments(std::byte* to, std::span<const hal::TxFragment> fragments) {
  for (const hal::TxFragment& fragment : fragments) {
    if (fragment.empty()) continue;
    std::memcpy(to, fragment.data(), fragment.size());  // the one copy
    to += fragment.size();
  }
  return to;
}

// The bytes of a frame given as fragments, or kInvalidArgument if they total
// 0 or more than hal::kMaxFrameBytes. Checked before anything is written.
inline Result<std::uint32_t> gathered_length(std::span<const hal::TxFragment> fragments) {
  std::size_t bytes = 0;
  for (const hal::TxFragment& fragment : fragments) {
    bytes += fragment.size();
    if (bytes > hal::kMaxFrameBytes) return Unexpected(Error::kInvalidArgument);
  }
  if (bytes == 0) return Unexpected(Error::kInvalidArgument);
  return static_cast<std::uint32_t>(bytes);
}

template <typename Driver>
class RingDriver {
 public:
  // hal::Nic::transmit: frames in order until one is invalid or the ring is
  // full; the device is started once for all of them.
  Result<std::size_t> transmit(std::span<const std::span<const std::byte>> frames) {
    Driver& d = driver();
    d.reclaim_tx();
    std::size_t count = 0;
    for (const auto& frame : frames) {
      if (frame.empty() || frame.size() > hal::kMaxFrameBytes) {
        if (count == 0) return Unexpected(Error::kInvalidArgument);
        break;
      }
      if (d.tx_full()) {
        if (count == 0) {
          ++d.nic_stats().tx_busy;
          return Unexpected(Error::kBusy);
        }
        break;
      }
      d.fill_tx(std::span(&frame, 1), static_cast<std::uint32_t>(frame.size()));
      ++count;
    }
    if (count != 0) d.start_tx();
    return count;
  }

  // hal::Nic::transmit_gather: the whole frame is checked before a slot is
  // taken or a byte written.
  Result<void> transmit_gather(std::span<const hal::TxFragment> fragments) {
    Driver& d = driver();
    auto bytes = gathered_length(fragments);
    if (!bytes.ok()) return Unexpected(bytes.error());
    d.reclaim_tx();
    if (d.tx_full()) {
      ++d.nic_stats().tx_busy;
      return Unexpected(Error::kBusy);
    }
    d.fill_tx(fragments, *bytes);
    d.start_tx();
    return {};
  }

  // hal::Nic::release: a handle not out with the stack is refused and
  // changes nothing.
  Result<void> release(hal::RxHandle handle) {
    Driver& d = driver();
    if (!d.rx_held(handle)) return Unexpected(Error::kInvalidArgument);
    d.repost_rx(handle);
    d.publish_rx();
    return {};
  }

  // Every valid handle goes back, one publication for the batch; the
  // result says whether any was refused.
  Result<void> release(std::span<const hal::RxHandle> handles) {
    Driver& d = driver();
    Result<void> result;
    for (const hal::RxHandle handle : handles) {
      if (!d.rx_held(handle)) {
        result = Unexpected(Error::kInvalidArgument);
        continue;
      }
      d.repost_rx(handle);
    }
    d.publish_rx();
    return result;
  }

 protected:
  RingDriver() = default;
  ~RingDriver() = default;

 private:
  Driver& driver() { return static_cast<Driver&>(*this); }
};

}  // namespace starling::nic

#endif  // STARLING_DRIVERS_NIC_RING_DRIVER_H_
