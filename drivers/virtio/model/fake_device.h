#ifndef STARLING_DRIVERS_VIRTIO_MODEL_FAKE_DEVICE_H_
#define STARLING_DRIVERS_VIRTIO_MODEL_FAKE_DEVICE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "drivers/virtio/virtqueue.h"

// The device side of one split virtqueue, in memory, for host tests: it
// consumes the avail ring, reads or fills the buffers the descriptors name
// (physical address == host pointer here), writes the used ring and raises
// an "interrupt" unless the driver suppressed it. It can also misbehave on
// request (ids out of range or not posted, lengths beyond the buffer).
namespace starling::virtio::testing {

class FakeQueueDevice {
 public:
  FakeQueueDevice(const SplitQueue::Memory& memory, std::uint16_t size)
      : desc_(reinterpret_cast<Descriptor*>(memory.descriptors)),
        avail_(reinterpret_cast<std::uint16_t*>(memory.avail)),
        used_(memory.used),
        size_(size) {}

  // Avail entries the driver published that the device has not consumed.
  std::uint16_t pending() const { return static_cast<std::uint16_t>(avail_idx() - last_avail_); }

  // Device reads: takes the next available buffer, returns its bytes and
  // completes it (used len 0, as QEMU does for TX).
  std::vector<std::byte> consume_tx() {
    const std::uint16_t id = next_avail();
    const Descriptor& d = desc_[id];
    std::vector<std::byte> out(d.len);
    std::memcpy(out.data(), reinterpret_cast<const void*>(static_cast<std::uintptr_t>(d.addr)),
                d.len);
    complete(id, 0);
    return out;
  }

  // Device writes: fills the next available buffer with `bytes`.
  void deliver_rx(std::span<const std::byte> bytes) {
    const std::uint16_t id = next_avail();
    const Descriptor& d = desc_[id];
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(d.addr)), bytes.data(),
                bytes.size() < d.len ? bytes.size() : d.len);
    complete(id, static_cast<std::uint32_t>(bytes.size()));
  }
  // Device side of a control command: the chain at the next avail entry,
  // its readable bytes gathered, and where the device writes its answer.
  struct Chain {
    std::uint16_t head = 0;
    std::vector<std::byte> readable;
    std::byte* writable = nullptr;
    std::uint32_t writable_len = 0;
    bool well_formed = false;  // readable descriptors, then one writable, no loop
  };
  Chain take_chain() {
    Chain chain;
    chain.head = next_avail();
    std::uint16_t id = chain.head;
    for (unsigned hops = 0; hops < size_; ++hops) {
      const Descriptor& d = desc_[id];
      auto* bytes = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(d.addr));
      if ((d.flags & kDescWrite) != 0) {
        chain.writable = bytes;
        chain.writable_len = d.len;
        chain.well_formed = (d.flags & kDescNext) == 0;
        return chain;
      }
      chain.readable.insert(chain.readable.end(), bytes, bytes + d.len);
      if ((d.flags & kDescNext) == 0) return chain;
      id = d.next;
    }
    return chain;
  }
  // Consumes the next available descriptor without completing it.
  std::uint16_t take_avail() { return next_avail(); }

  // Writes a used entry as given: the misbehaving device.
  void complete(std::uint32_t id, std::uint32_t len) {
    auto* ring = reinterpret_cast<UsedElement*>(used_ + 4);
    ring[used_idx_ & (size_ - 1)] = UsedElement{id, len};
    ++used_idx_;
    std::atomic_thread_fence(std::memory_order_release);
    *reinterpret_cast<std::uint16_t*>(used_ + 2) = used_idx_;
    ++completions_;
    if ((avail_[0] & kAvailNoInterrupt) == 0) ++interrupts_;
  }

  void set_no_notify(bool on) { *reinterpret_cast<std::uint16_t*>(used_) = on ? kUsedNoNotify : 0; }
  std::uint64_t interrupts() const { return interrupts_; }
  std::uint64_t completions() const { return completions_; }
  bool descriptor_writable(std::uint16_t id) const { return (desc_[id].flags & kDescWrite) != 0; }

 private:
  std::uint16_t avail_idx() const {
    const std::uint16_t idx = avail_[1];
    std::atomic_thread_fence(std::memory_order_acquire);
    return idx;
  }
  std::uint16_t next_avail() {
    const std::uint16_t id = avail_[2 + (last_avail_ & (size_ - 1))];
    ++last_avail_;
    return id;
  }

  Descriptor* desc_;
  std::uint16_t* avail_;
  std::byte* used_;
  std::uint16_t size_;
  std::uint16_t last_avail_ = 0;
  std::uint16_t used_idx_ = 0;
  std::uint64_t interrupts_ = 0;
  std::uint64_t completions_ = 0;
};

}  // namespace starling::virtio::testing

#endif  // STARLING_DRIVERS_VIRTIO_MODEL_FAKE_DEVICE_H_
