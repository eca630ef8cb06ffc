#include "drivers/virtio/transport.h"

#include "drivers/virtio/barrier.h"

namespace starling::virtio {
namespace {

// Bounded wait on the device: a reset completing.
constexpr int kResetPolls = 1'000'000;

std::uint16_t largest_power_of_two_at_most(std::uint32_t n, std::uint16_t cap) {
  std::uint32_t p = 1;
  while (p * 2 <= n && p * 2 <= cap) p *= 2;
  return static_cast<std::uint16_t>(p);
}

}  // namespace

bool is_virtio_device(const MmioDevice& device, std::uint32_t device_id) {
  const std::uint32_t version = device.read(MmioReg::kVersion);
  return device.read(MmioReg::kMagicValue) == kMagic &&
         (version == kVersionLegacy || version == kVersionModern) &&
         device.read(MmioReg::kDeviceId) == device_id;
}

Result<void> reset_and_acknowledge(const MmioDevice& device) {
  device.write(MmioReg::kStatus, 0);
  int polls = 0;
  while (device.read(MmioReg::kStatus) != 0) {
    if (++polls == kResetPolls) return Unexpected(Error::kDeviceError);
  }
  device.add_status(kStatusAcknowledge);
  device.add_status(kStatusDriver);
  return {};
}

Result<void> negotiate(const MmioDevice& device, bool legacy, std::uint64_t wanted,
                       std::uint64_t* taken) {
  if (legacy) {
    device.write(MmioReg::kDeviceFeaturesSel, 0);
    const std::uint64_t offered = device.read(MmioReg::kDeviceFeatures);
    *taken = offered & wanted & 0xFFFF'FFFFu;
    device.write(MmioReg::kDriverFeaturesSel, 0);
    device.write(MmioReg::kDriverFeatures, static_cast<std::uint32_t>(*taken));
    device.write(MmioReg::kGuestPageSize, static_cast<std::uint32_t>(mem::kPageSize));
    return {};
  }
  const std::uint64_t offered = device.device_features();
  if ((offered & kFeatureVersion1) == 0) {
    device.add_status(kStatusFailed);
    return Unexpected(Error::kUnsupported);
  }
  *taken = offered & (wanted | kFeatureVersion1);
  device.set_driver_features(*taken);
  device.add_status(kStatusFeaturesOk);
  // Re-read: the device may refuse the set.
  if ((device.read(MmioReg::kStatus) & kStatusFeaturesOk) == 0) {
    device.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  return {};
}

Result<void> setup_queue(const MmioDevice& device, bool legacy, std::uint32_t index,
                         mem::PhysAddr rings, const SplitQueue::Memory& buffers,
                         std::uint16_t max_size, SplitQueue& queue,
                         SplitQueue::Direction direction) {
  device.write(MmioReg::kQueueSel, index);
  // A queue already in use (after our reset) is a device in a bad state.
  if (device.read(legacy ? MmioReg::kQueuePfn : MmioReg::kQueueReady) != 0) {
    device.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  const std::uint32_t max = device.read(MmioReg::kQueueNumMax);
  if (max == 0) {
    device.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  const std::uint16_t size = largest_power_of_two_at_most(max, max_size);
  std::byte* cpu = mem::to_pointer(rings);
  SplitQueue::Memory layout = buffers;
  layout.descriptors = cpu;
  layout.avail = cpu + avail_offset(size);
  layout.used = cpu + used_offset(size);
  if (auto ok = queue.init(layout, size, direction); !ok.ok()) return ok;

  device.write(MmioReg::kQueueNum, size);
  if (legacy) {
    // QueuePFN is 32 bits of 4 KiB pages: rings must lie below 16 TiB.
    if (rings / mem::kPageSize > 0xFFFF'FFFFu) {
      device.add_status(kStatusFailed);
      return Unexpected(Error::kUnsupported);
    }
    device.write(MmioReg::kQueueAlign, static_cast<std::uint32_t>(kQueueAlign));
    // The zeroed rings before the PFN store that turns the queue on.
    barrier::before_mmio_write();
    device.write(MmioReg::kQueuePfn, static_cast<std::uint32_t>(rings / mem::kPageSize));
    return {};
  }
  const mem::PhysAddr desc = rings;
  const mem::PhysAddr avail = rings + avail_offset(size);
  const mem::PhysAddr used = rings + used_offset(size);
  device.write(MmioReg::kQueueDescLow, static_cast<std::uint32_t>(desc));
  device.write(MmioReg::kQueueDescHigh, static_cast<std::uint32_t>(desc >> 32));
  device.write(MmioReg::kQueueDriverLow, static_cast<std::uint32_t>(avail));
  device.write(MmioReg::kQueueDriverHigh, static_cast<std::uint32_t>(avail >> 32));
  device.write(MmioReg::kQueueDeviceLow, static_cast<std::uint32_t>(used));
  device.write(MmioReg::kQueueDeviceHigh, static_cast<std::uint32_t>(used >> 32));
  // The zeroed rings before QueueReady lets the device read them.
  barrier::before_mmio_write();
  device.write(MmioReg::kQueueReady, 1);
  return {};
}

}  // namespace starling::virtio
