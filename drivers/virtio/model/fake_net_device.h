#ifndef STARLING_DRIVERS_VIRTIO_MODEL_FAKE_NET_DEVICE_H_
#define STARLING_DRIVERS_VIRTIO_MODEL_FAKE_NET_DEVICE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "drivers/virtio/mmio.h"
#include "drivers/virtio/model/fake_device.h"
#include "drivers/virtio/virtqueue.h"

// A virtio-mmio virtio-net device model (version 2, or 1 with `version`) for host tests: the
// register semantics the driver relies on (reset, feature windows,
// FEATURES_OK acceptance, queue setup, notify, InterruptStatus/ACK, config
// space with a generation counter), the device side of the two split rings
// (FakeQueueDevice), and knobs to misbehave.
namespace starling::virtio::testing {

class FakeNetDevice final : public mmio::RegisterBus {
 public:
  // CSUM, GUEST_CSUM, MAC, STATUS, MRG_RXBUF: what QEMU offers with a TAP
  // backend (MRG_RXBUF is not taken).
  static constexpr std::uint64_t kOffered =
      feature(0) | feature(1) | feature(5) | feature(16) | feature(15) | kFeatureVersion1;

  std::uint32_t version = kVersionModern;
  std::uint64_t offered = kOffered;
  bool accept_features = true;
  std::uint32_t queue_num_max = 256;
  bool consume_tx_on_notify = true;
  std::array<std::uint8_t, 6> mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
  std::uint16_t link_status = 1;
  bool restless_config = false;           // every ConfigGeneration read sees a new generation
  std::function<void()> raise_interrupt;  // the line going up: the test runs the trap

  std::vector<std::vector<std::byte>> transmitted;  // frames, virtio_net_hdr stripped
  std::vector<std::array<std::byte, 12>> tx_headers;
  std::uint64_t notifies[2] = {0, 0};
  std::uint64_t rx_dropped_no_buffer = 0;
  std::uint64_t raised = 0;
  std::uint64_t driver_features = 0;
  std::uint32_t status = 0;

  std::optional<FakeQueueDevice>& queue(unsigned i) { return devices_[i]; }

  // A frame from the wire: into the next posted RX buffer behind a header
  // whose flags byte is `header_flags` (0, or DATA_VALID = 2 / NEEDS_CSUM = 1
  // as a device with GUEST_CSUM sets them), or dropped if none is posted.
  bool deliver(std::span<const std::byte> frame, std::uint8_t header_flags = 0) {
    auto& rx = devices_[0];
    if (!rx || rx->pending() == 0) {
      ++rx_dropped_no_buffer;
      return false;
    }
    std::vector<std::byte> bytes(header_bytes() + frame.size());
    std::memcpy(bytes.data() + header_bytes(), frame.data(), frame.size());
    bytes[0] = std::byte{header_flags};
    const auto before = rx->interrupts();
    rx->deliver_rx(bytes);
    if (rx->interrupts() != before) raise(kInterruptUsedRing);
    return true;
  }
  // Completes every pending TX buffer, recording the frames.
  void consume_tx() {
    auto& tx = devices_[1];
    if (!tx) return;
    const auto before = tx->interrupts();
    while (tx->pending() != 0) {
      auto bytes = tx->consume_tx();
      std::array<std::byte, 12> header{};
      std::memcpy(header.data(), bytes.data(), header_bytes());
      tx_headers.push_back(header);
      transmitted.emplace_back(bytes.begin() + header_bytes(), bytes.end());
    }
    if (tx->interrupts() != before) raise(kInterruptUsedRing);
  }
  void set_link(bool up) {
    link_status = up ? 1 : 0;
    ++generation_;
    raise(kInterruptConfig);
  }
  void need_reset() {
    status |= kStatusNeedsReset;
    raise(kInterruptConfig);
  }
  void raise(std::uint32_t cause) {
    interrupt_status_ |= cause;
    ++raised;
    if (raise_interrupt) raise_interrupt();
  }
  std::uint32_t interrupt_status() const { return interrupt_status_; }
  // virtio_net_hdr: 12 bytes with VERSION_1, 10 for legacy without MRG_RXBUF.
  std::size_t header_bytes() const {
    return (driver_features & (kFeatureVersion1 | feature(15))) != 0 ? 12 : 10;
  }
  std::uint32_t guest_page_size = 0;

  // mmio::RegisterBus: every width through one register decoder.
  std::uint32_t read32(std::uint32_t offset) override { return read(offset, 4); }
  std::uint32_t read16(std::uint32_t offset) override { return read(offset, 2); }
  std::uint32_t read8(std::uint32_t offset) override { return read(offset, 1); }
  void write32(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }

  std::uint32_t read(std::uint32_t offset, unsigned bytes) {
    if (offset >= static_cast<std::uint32_t>(MmioReg::kConfig)) {
      const std::uint32_t at = offset - static_cast<std::uint32_t>(MmioReg::kConfig);
      std::array<std::uint8_t, 8> config{};
      std::memcpy(config.data(), mac.data(), 6);
      config[6] = static_cast<std::uint8_t>(link_status);
      config[7] = static_cast<std::uint8_t>(link_status >> 8);
      std::uint32_t value = 0;
      for (unsigned i = 0; i < bytes && at + i < config.size(); ++i)
        value |= std::uint32_t{config[at + i]} << (8 * i);
      return value;
    }
    switch (static_cast<MmioReg>(offset)) {
      case MmioReg::kMagicValue:
        return kMagic;
      case MmioReg::kVersion:
        return version;
      case MmioReg::kDeviceId:
        return kDeviceIdNet;
      case MmioReg::kVendorId:
        return 0x554D4551;
      case MmioReg::kDeviceFeatures:
        if (version == kVersionLegacy) {  // 32 bits, and no VERSION_1
          return features_sel_ == 0 ? static_cast<std::uint32_t>(offered) : 0;
        }
        return static_cast<std::uint32_t>(offered >> (features_sel_ == 1 ? 32 : 0));
      case MmioReg::kQueuePfn:
        return queue_sel_ < 2 ? queues_[queue_sel_].pfn : 0;
      case MmioReg::kQueueNumMax:
        return queue_sel_ < 2 ? queue_num_max : 0;
      case MmioReg::kQueueReady:
        return queue_sel_ < 2 ? queues_[queue_sel_].ready : 0;
      case MmioReg::kInterruptStatus:
        return interrupt_status_;
      case MmioReg::kStatus:
        return status;
      case MmioReg::kConfigGeneration:
        return restless_config ? ++generation_ : generation_;
      default:
        return 0;
    }
  }

  void write(std::uint32_t offset, std::uint32_t value) {
    auto* q = queue_sel_ < 2 ? &queues_[queue_sel_] : nullptr;
    switch (static_cast<MmioReg>(offset)) {
      case MmioReg::kDeviceFeaturesSel:
        features_sel_ = value;
        break;
      case MmioReg::kDriverFeaturesSel:
        driver_features_sel_ = value;
        break;
      case MmioReg::kDriverFeatures:
        if (driver_features_sel_ == 0) {
          driver_features = (driver_features & ~std::uint64_t{0xffffffff}) | value;
        } else {
          driver_features = (driver_features & 0xffffffff) | (std::uint64_t{value} << 32);
        }
        break;
      case MmioReg::kStatus:
        if (value == 0) {
          reset();
          break;
        }
        if ((value & kStatusFeaturesOk) != 0 &&
            (!accept_features || (driver_features & ~offered) != 0)) {
          value &= ~kStatusFeaturesOk;
        }
        status = value;
        break;
      case MmioReg::kQueueSel:
        queue_sel_ = value;
        break;
      case MmioReg::kGuestPageSize:
        guest_page_size = value;
        break;
      case MmioReg::kQueueAlign:
        if (q) q->align = value;
        break;
      case MmioReg::kQueuePfn:
        // Legacy layout: descriptors, avail after them, used at the next
        // QueueAlign boundary.
        if (q && value != 0 && guest_page_size != 0 && q->align != 0) {
          q->pfn = value;
          q->desc = std::uint64_t{value} * guest_page_size;
          q->driver = q->desc + SplitQueue::descriptor_bytes(static_cast<std::uint16_t>(q->num));
          const std::uint64_t avail_end =
              q->driver + SplitQueue::avail_bytes(static_cast<std::uint16_t>(q->num));
          q->device = (avail_end + q->align - 1) / q->align * q->align;
          SplitQueue::Memory memory{.descriptors = pointer(q->desc),
                                    .avail = pointer(q->driver),
                                    .used = pointer(q->device)};
          devices_[queue_sel_].emplace(memory, static_cast<std::uint16_t>(q->num));
        }
        break;
      case MmioReg::kQueueNum:
        if (q) q->num = value;
        break;
      case MmioReg::kQueueDescLow:
        if (q) q->desc = (q->desc & ~0xffffffffull) | value;
        break;
      case MmioReg::kQueueDescHigh:
        if (q) q->desc = (q->desc & 0xffffffff) | (std::uint64_t{value} << 32);
        break;
      case MmioReg::kQueueDriverLow:
        if (q) q->driver = (q->driver & ~0xffffffffull) | value;
        break;
      case MmioReg::kQueueDriverHigh:
        if (q) q->driver = (q->driver & 0xffffffff) | (std::uint64_t{value} << 32);
        break;
      case MmioReg::kQueueDeviceLow:
        if (q) q->device = (q->device & ~0xffffffffull) | value;
        break;
      case MmioReg::kQueueDeviceHigh:
        if (q) q->device = (q->device & 0xffffffff) | (std::uint64_t{value} << 32);
        break;
      case MmioReg::kQueueReady:
        if (q && value == 1) {
          q->ready = 1;
          SplitQueue::Memory memory{.descriptors = pointer(q->desc),
                                    .avail = pointer(q->driver),
                                    .used = pointer(q->device)};
          devices_[queue_sel_].emplace(memory, static_cast<std::uint16_t>(q->num));
        }
        break;
      case MmioReg::kQueueNotify:
        if (value < 2) ++notifies[value];
        if (value == 1 && consume_tx_on_notify) consume_tx();
        break;
      case MmioReg::kInterruptAck:
        interrupt_status_ &= ~value;
        break;
      default:
        break;
    }
  }

 private:
  struct Queue {
    std::uint32_t num = 0;
    std::uint32_t ready = 0;
    std::uint32_t pfn = 0;
    std::uint32_t align = 0;
    std::uint64_t desc = 0, driver = 0, device = 0;
  };
  static std::byte* pointer(std::uint64_t address) {
    return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address));
  }
  void reset() {
    status = 0;
    interrupt_status_ = 0;
    driver_features = 0;
    queues_ = {};
    devices_[0].reset();
    devices_[1].reset();
  }

  std::uint32_t features_sel_ = 0;
  std::uint32_t driver_features_sel_ = 0;
  std::uint32_t queue_sel_ = 0;
  std::uint32_t interrupt_status_ = 0;
  std::uint32_t generation_ = 0;
  std::array<Queue, 2> queues_{};
  std::array<std::optional<FakeQueueDevice>, 2> devices_;
};

}  // namespace starling::virtio::testing

#endif  // STARLING_DRIVERS_VIRTIO_MODEL_FAKE_NET_DEVICE_H_
