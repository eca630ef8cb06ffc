#ifndef STARLING_DRIVERS_VIRTIO_TRANSPORT_H_
#define STARLING_DRIVERS_VIRTIO_TRANSPORT_H_

#include <cstddef>
#include <cstdint>

#include "drivers/virtio/mmio.h"
#include "drivers/virtio/virtqueue.h"
#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

// The virtio-mmio steps every driver takes (virtio 1.1 §3.1.1, §4.2.3.2), in
// one place: reset, the legacy-or-modern split of feature negotiation, and
// handing a split queue's rings to the device. virtio-net and virtio-rng
// both use them.
namespace starling::virtio {

// Ring layout of a queue of `size` entries: the legacy one (§2.6.2 legacy
// interface: descriptors, avail right after, used at the next QueueAlign
// boundary), which a modern device accepts as three separate addresses.
inline constexpr std::size_t kQueueAlign = mem::kPageSize;
constexpr std::size_t avail_offset(std::uint16_t size) {
  return SplitQueue::descriptor_bytes(size);
}
constexpr std::size_t used_offset(std::uint16_t size) {
  return (avail_offset(size) + SplitQueue::avail_bytes(size) + kQueueAlign - 1) &
         ~(kQueueAlign - 1);
}
constexpr std::size_t ring_bytes(std::uint16_t size) {
  return used_offset(size) + SplitQueue::used_bytes(size);
}

// Whether `device` is a virtio-mmio device (either version) of type `device_id`.
bool is_virtio_device(const MmioDevice& device, std::uint32_t device_id);

// Writes 0 to Status and waits (bounded) for the device to read back 0, then
// sets ACKNOWLEDGE and DRIVER. kDeviceError if the reset never completes.
Result<void> reset_and_acknowledge(const MmioDevice& device);

// Feature negotiation. Modern: VERSION_1 required (kUnsupported, FAILED
// set, without it); the driver takes `wanted & offered` plus VERSION_1 and
// FEATURES_OK is checked (kDeviceError if the device refuses). Legacy: one
// 32-bit word, no FEATURES_OK, the guest page size written. The features
// taken, through `taken`.
Result<void> negotiate(const MmioDevice& device, bool legacy, std::uint64_t wanted,
                       std::uint64_t* taken);

// Queue `index`: checks it is not already in use and the device offers one,
// picks the largest power-of-two size <= min(QueueNumMax, max_size), lays it
// out in `rings` (ring_bytes(max_size) bytes, page aligned, zeroed by
// queue.init) and gives the device the rings' addresses (PFN for legacy,
// three addresses and QueueReady for modern). Errors set FAILED.
Result<void> setup_queue(const MmioDevice& device, bool legacy, std::uint32_t index,
                         mem::PhysAddr rings, const SplitQueue::Memory& buffers,
                         std::uint16_t max_size, SplitQueue& queue,
                         SplitQueue::Direction direction);

}  // namespace starling::virtio

#endif  // STARLING_DRIVERS_VIRTIO_TRANSPORT_H_
