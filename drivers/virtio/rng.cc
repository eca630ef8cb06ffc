#include "drivers/virtio/rng.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "drivers/virtio/barrier.h"
#include "drivers/virtio/transport.h"

namespace starling::virtio {

static_assert(ring_bytes(Rng::kQueueSize) <= 2 * mem::kPageSize);

bool Rng::is_rng_device(const MmioDevice& device) {
  return is_virtio_device(device, kDeviceIdEntropy);
}

Result<void> Rng::init(MmioDevice device) {
  device_ = device;
  ready_ = false;
  if (!is_rng_device(device_)) return Unexpected(Error::kNotFound);
  const bool legacy = device_.read(MmioReg::kVersion) == kVersionLegacy;
  if (auto ok = reset_and_acknowledge(device_); !ok.ok()) return ok;
  std::uint64_t taken = 0;
  if (auto ok = negotiate(device_, legacy, 0, &taken); !ok.ok()) return ok;
  const SplitQueue::Memory buffers{.buffers_cpu = buffers_.data(),
                                   .buffers_phys = mem::to_phys(buffers_.data()),
                                   .buffer_bytes = kBufferBytes};
  if (auto ok = setup_queue(device_, legacy, 0, mem::to_phys(rings_.data()), buffers, kQueueSize,
                            queue_, SplitQueue::Direction::kDeviceWrites);
      !ok.ok()) {
    return ok;
  }
  queue_.disable_interrupts();  // polled
  barrier::before_mmio_write();
  device_.add_status(kStatusDriverOk);
  ready_ = true;
  return {};
}

Result<void> Rng::read(std::span<std::byte> out) {
  if (!ready_) return Unexpected(Error::kInvalidArgument);
  // A device that keeps answering with no bytes is as good as none.
  int empty_answers = 0;
  while (!out.empty()) {
    auto id = queue_.take_free();
    if (!id) return Unexpected(Error::kDeviceError);  // every buffer is out: cannot happen
    (void)queue_.post(*id, kBufferBytes);
    if (queue_.publish()) {
      barrier::before_mmio_write();
      device_.write(MmioReg::kQueueNotify, 0);
    }
    std::uint32_t polls = 0;
    std::optional<SplitQueue::Completion> done;
    while (!(done = queue_.pop_used())) {
      if (++polls == kPollLimit) return Unexpected(Error::kTimedOut);
    }
    if (!done->len_ok) {
      (void)queue_.put_free(done->id);
      return Unexpected(Error::kDeviceError);
    }
    const std::size_t n = std::min<std::size_t>(done->len, out.size());
    if (n == 0 && ++empty_answers == kMaxEmptyAnswers) {
      (void)queue_.put_free(done->id);
      return Unexpected(Error::kDeviceError);
    }
    std::memcpy(out.data(), queue_.buffer(done->id).data(), n);
    // The bytes are used once: never leave a key's material in the buffer.
    std::memset(queue_.buffer(done->id).data(), 0, kBufferBytes);
    (void)queue_.put_free(done->id);
    out = out.subspan(n);
    bytes_read_ += n;
  }
  return {};
}

}  // namespace starling::virtio
