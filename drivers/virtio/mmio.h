#ifndef STARLING_DRIVERS_VIRTIO_MMIO_H_
#define STARLING_DRIVERS_VIRTIO_MMIO_H_

#include <cstdint>

#include "drivers/mmio/register_bus.h"

// The virtio-mmio transport's registers (virtio 1.1 §4.2.2; docs/hardware/qemu-virt.md §8)
// and 32-bit access to them. Version 2 ("modern") is the main path; version 1
// ("legacy", QEMU's default unless -global virtio-mmio.force-legacy=false)
// is supported too (§4.2.4).
namespace starling::virtio {

enum class MmioReg : std::uint32_t {
  kMagicValue = 0x000,  // "virt"
  kVersion = 0x004,     // 1 legacy, 2 modern
  kDeviceId = 0x008,    // 0 = empty slot, 1 = net
  kVendorId = 0x00C,
  kDeviceFeatures = 0x010,
  kDeviceFeaturesSel = 0x014,
  kDriverFeatures = 0x020,
  kDriverFeaturesSel = 0x024,
  kGuestPageSize = 0x028,  // legacy only
  kQueueSel = 0x030,
  kQueueNumMax = 0x034,
  kQueueNum = 0x038,
  kQueueAlign = 0x03C,  // legacy only
  kQueuePfn = 0x040,    // legacy only: ring address >> 12; 0 = queue off
  kQueueReady = 0x044,
  kQueueNotify = 0x050,
  kInterruptStatus = 0x060,
  kInterruptAck = 0x064,
  kStatus = 0x070,
  kQueueDescLow = 0x080,
  kQueueDescHigh = 0x084,
  kQueueDriverLow = 0x090,
  kQueueDriverHigh = 0x094,
  kQueueDeviceLow = 0x0A0,
  kQueueDeviceHigh = 0x0A4,
  kConfigGeneration = 0x0FC,
  kConfig = 0x100,
};

inline constexpr std::uint32_t kMagic = 0x7472'6976;  // "virt", little-endian
inline constexpr std::uint32_t kVersionLegacy = 1;
inline constexpr std::uint32_t kVersionModern = 2;
inline constexpr std::uint32_t kDeviceIdNet = 1;

// Status bits (§2.1).
inline constexpr std::uint32_t kStatusAcknowledge = 1;
inline constexpr std::uint32_t kStatusDriver = 2;
inline constexpr std::uint32_t kStatusDriverOk = 4;
inline constexpr std::uint32_t kStatusFeaturesOk = 8;
inline constexpr std::uint32_t kStatusNeedsReset = 64;
inline constexpr std::uint32_t kStatusFailed = 128;

// InterruptStatus / InterruptACK bits.
inline constexpr std::uint32_t kInterruptUsedRing = 1;
inline constexpr std::uint32_t kInterruptConfig = 2;

// Feature bits are bit numbers; these are the masks.
inline constexpr std::uint64_t feature(unsigned bit) {
  return std::uint64_t{1} << bit;
}
inline constexpr std::uint64_t kFeatureVersion1 = feature(32);

// The transport's registers through mmio::Registers (drivers/mmio): the
// device, or in host tests a model of it (a Status write of 0 resets,
// QueueNotify runs the device), which plain memory cannot be.
class MmioDevice {
 public:
  constexpr MmioDevice() = default;
  constexpr explicit MmioDevice(std::uintptr_t base, mmio::RegisterBus* model = nullptr)
      : regs_(base, model) {}

  std::uintptr_t base() const { return regs_.base(); }
  mmio::RegisterBus* model() const { return regs_.model(); }

  std::uint32_t read(MmioReg reg) const { return regs_.read(static_cast<std::uint32_t>(reg)); }
  void write(MmioReg reg, std::uint32_t value) const {
    regs_.write(static_cast<std::uint32_t>(reg), value);
  }

  // Device config space, read at its natural width (§4.2.2.2).
  std::uint8_t read_config8(std::uint32_t offset) const {
    return regs_.read8(static_cast<std::uint32_t>(MmioReg::kConfig) + offset);
  }
  std::uint16_t read_config16(std::uint32_t offset) const {
    return regs_.read16(static_cast<std::uint32_t>(MmioReg::kConfig) + offset);
  }

  void add_status(std::uint32_t bits) const {
    write(MmioReg::kStatus, read(MmioReg::kStatus) | bits);
  }

  // 64 feature bits through the 32-bit window.
  std::uint64_t device_features() const {
    write(MmioReg::kDeviceFeaturesSel, 0);
    const std::uint64_t low = read(MmioReg::kDeviceFeatures);
    write(MmioReg::kDeviceFeaturesSel, 1);
    return low | (std::uint64_t{read(MmioReg::kDeviceFeatures)} << 32);
  }

  void set_driver_features(std::uint64_t features) const {
    write(MmioReg::kDriverFeaturesSel, 0);
    write(MmioReg::kDriverFeatures, static_cast<std::uint32_t>(features));
    write(MmioReg::kDriverFeaturesSel, 1);
    write(MmioReg::kDriverFeatures, static_cast<std::uint32_t>(features >> 32));
  }

 private:
  mmio::Registers regs_;
};

}  // namespace starling::virtio

#endif  // STARLING_DRIVERS_VIRTIO_MMIO_H_
