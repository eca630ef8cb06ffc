#ifndef STARLING_DRIVERS_VIRTIO_RNG_H_
#define STARLING_DRIVERS_VIRTIO_RNG_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivers/virtio/mmio.h"
#include "drivers/virtio/virtqueue.h"
#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

// virtio-rng, the entropy device (virtio 1.1 §5.4; device ID 4): one queue
// (requestq, index 0), no feature bits, no config space. The driver posts
// device-writable buffers and the device fills them with random bytes,
// reporting how many in the used length. QEMU: `-device virtio-rng-device`
// on `virt` (backed by the host's getrandom()).
//
// Used at boot, for keys (TCP initial sequence numbers, lwIP's random
// numbers), so read() polls the used ring: no interrupt, no executor, a
// bounded wait (kPollLimit used-ring looks) that ends in kTimedOut. Its
// memory is inside the object (two pages of rings, one small buffer): no
// allocator is needed that early.
namespace starling::virtio {

inline constexpr std::uint32_t kDeviceIdEntropy = 4;

class Rng {
 public:
  static constexpr std::uint16_t kQueueSize = 8;
  static constexpr std::uint32_t kBufferBytes = 64;
  // Used-ring looks before read() gives up on the device.
  static constexpr std::uint32_t kPollLimit = 50'000'000;
  // Empty answers (used length 0) in one read() before it gives up.
  static constexpr int kMaxEmptyAnswers = 16;

  Rng() = default;
  Rng(const Rng&) = delete;
  Rng& operator=(const Rng&) = delete;

  static bool is_rng_device(const MmioDevice& device);

  // Reset, negotiation (none wanted; VERSION_1 on a modern device), the
  // queue, DRIVER_OK. kNotFound if no virtio-rng is there.
  Result<void> init(MmioDevice device);
  // Fills `out` completely. kTimedOut: the device stopped answering;
  // kDeviceError: it answered with an id or length it was not given
  // (counted in errors()); kInvalidArgument before init().
  Result<void> read(std::span<std::byte> out);

  std::uint64_t errors() const { return queue_.errors(); }
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  MmioDevice device_;
  bool ready_ = false;
  std::uint64_t bytes_read_ = 0;
  SplitQueue queue_;
  alignas(mem::kPageSize) std::array<std::byte, 2 * mem::kPageSize> rings_{};
  alignas(16) std::array<std::byte, kQueueSize * kBufferBytes> buffers_{};
};

}  // namespace starling::virtio

#endif  // STARLING_DRIVERS_VIRTIO_RNG_H_
