#ifndef STARLING_FUZZ_NIC_STACK_SIDE_H_
#define STARLING_FUZZ_NIC_STACK_SIDE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fuzz/harness.h"
#include "kernel/hal/nic.h"

// The network stack's side of a NIC driver fuzzer, the same for every
// hal::Nic (virtio_used_ring, dwmac_descriptors): what the stack may do
// between the device's moves, each step reading its operands from the input,
// and the invariants of kernel/hal/nic.h checked on the way. Every received
// frame lies inside the driver's DMA memory and fits a buffer, a handle is
// handed out only while the stack does not hold it, a handle releases once
// and only once, and a handle the stack never had is refused.
namespace starling::fuzz {

template <typename Nic>
class NicStackSide {
 public:
  // `dma`: the memory the driver's buffers come from; `fuzzer`: the name
  // check() reports.
  NicStackSide(Nic& nic, std::span<const std::byte> dma, std::size_t buffer_bytes,
               const char* fuzzer)
      : nic_(&nic), dma_(dma), buffer_bytes_(buffer_bytes), fuzzer_(fuzzer) {}

  // The stack polls; keeps the frames the input's bit mask says, releases
  // the others (and checks a second release is refused).
  void poll(Input& in) {
    hal::RxFrame batch[8];
    const std::uint8_t keep = in.u8();
    const std::size_t n = nic_->receive(batch);
    check(n <= 8, "batch size");
    for (std::size_t i = 0; i < n; ++i) {
      const auto frame = batch[i].data;
      check(std::find(held_.begin(), held_.end(), batch[i].handle) == held_.end(),
            "a buffer the stack holds handed out again");
      check(frame.data() >= dma_.data() && frame.data() + frame.size() <= dma_.data() + dma_.size(),
            "frame in DMA memory");
      check(frame.size() <= buffer_bytes_, "frame fits its buffer");
      if (!frame.empty()) {
        // Reading the last byte: ASan checks it is memory we own.
        volatile std::byte sink = frame[frame.size() - 1];
        (void)sink;
      }
      if ((keep >> i) & 1) {
        held_.push_back(batch[i].handle);
      } else {
        check(nic_->release(batch[i].handle).ok(), "release of a received buffer");
        check(!nic_->release(batch[i].handle).ok(), "second release refused");
      }
    }
  }

  // The stack returns a held buffer, or names a handle: refused unless it
  // holds it.
  void release(Input& in) {
    const bool latest = (in.u8() & 1) != 0;
    const auto handle =
        latest && !held_.empty() ? held_.back() : static_cast<hal::RxHandle>(in.u16());
    const auto at = std::find(held_.begin(), held_.end(), handle);
    if (at == held_.end()) {
      check(!nic_->release(handle).ok(), "release of a handle the stack does not hold");
    } else {
      check(nic_->release(handle).ok(), "release of a held handle");
      held_.erase(at);
    }
  }

  // A frame of any length, empty and oversized included.
  void transmit(Input& in) {
    const std::size_t length = in.u16() % 2200;
    fill(length, in.u8());
    const std::span<const std::byte> frames[] = {std::span(scratch_).first(length)};
    (void)nic_->transmit(frames);
  }

  // A frame of up to four fragments of any length.
  void transmit_gather(Input& in) {
    fill(3200, in.u8());
    hal::TxFragment fragments[4];
    const std::size_t count = in.u8() % 5;
    std::size_t at = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t length = in.u16() % 800;
      fragments[i] = std::span<const std::byte>(scratch_.data() + at, length);
      at += length;
    }
    (void)nic_->transmit_gather(std::span(fragments, count));
  }

  // At the end: every handle the stack still holds is good for one release
  // (whatever resets happened meanwhile).
  void release_all() {
    for (const hal::RxHandle handle : held_) check(nic_->release(handle).ok(), "final release");
    held_.clear();
  }

 private:
  void check(bool condition, const char* what) const { fuzz::check(condition, fuzzer_, what); }
  // `length` bytes of a pattern, and one spare: an empty frame still has a
  // non-null data() (a device model memcpy()s it; memcpy's source must not
  // be null).
  void fill(std::size_t length, std::uint8_t seed) {
    scratch_.resize(length + 1);
    for (std::size_t i = 0; i < scratch_.size(); ++i) {
      scratch_[i] = std::byte(static_cast<std::uint8_t>(seed + i));
    }
  }

  Nic* nic_;
  std::span<const std::byte> dma_;
  std::size_t buffer_bytes_;
  const char* fuzzer_;
  std::vector<hal::RxHandle> held_;
  std::vector<std::byte> scratch_;
};

}  // namespace starling::fuzz

#endif  // STARLING_FUZZ_NIC_STACK_SIDE_H_
