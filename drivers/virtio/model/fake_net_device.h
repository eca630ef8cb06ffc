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
// (FakeQueueDevice), the control queue (queue 2: RX mode and MAC table
// commands, and the receive filter they set, as QEMU's virtio-net applies
// it: a device starts promiscuous; then our MAC, broadcast, and multicast
// in the table or with ALLMULTI; a table of more than 64 multicast entries
// passes all multicast), and knobs to misbehave.
namespace starling::virtio::testing {

class FakeNetDevice final : public mmio::RegisterBus {
 public:
  // CSUM, GUEST_CSUM, MAC, STATUS, MRG_RXBUF: what QEMU offers with a TAP
  // backend (MRG_RXBUF is not taken). QEMU offers CTRL_VQ and CTRL_RX too;
  // kOfferedFilter adds them (the filter tests), the others run without.
  static constexpr std::uint64_t kOffered =
      feature(0) | feature(1) | feature(5) | feature(16) | feature(15) | kFeatureVersion1;
  static constexpr std::uint64_t kOfferedFilter = kOffered | feature(17) | feature(18);

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
  std::uint64_t notifies[3] = {0, 0, 0};
  // Control queue: its size, the ack it answers (VIRTIO_NET_OK = 0), and
  // whether it answers at all.
  std::uint32_t ctrl_num_max = 64;
  std::uint8_t ctrl_ack = 0;
  bool ctrl_answers = true;
  // The receive filter the commands set (QEMU's reset state).
  bool promisc = true;
  bool allmulti = false;
  bool multi_overflow = false;
  std::vector<std::array<std::uint8_t, 6>> multicast_table;
  static constexpr std::size_t kMacTableEntries = 64;  // QEMU's MAC_TABLE_ENTRIES
  std::uint64_t ctrl_commands = 0;
  std::uint64_t ctrl_malformed = 0;
  std::uint64_t rx_filtered = 0;  // frames the filter dropped
  std::uint64_t rx_dropped_no_buffer = 0;
  std::uint64_t raised = 0;
  // The driver's reads of Status and InterruptStatus (each a costly MMIO read).
  std::uint64_t status_reads = 0;
  std::uint64_t interrupt_status_reads = 0;
  std::uint64_t driver_features = 0;
  std::uint32_t status = 0;

  std::optional<FakeQueueDevice>& queue(unsigned i) { return devices_[i]; }

  // QEMU's receive_filter(), without VLANs.
  bool accepts(std::span<const std::byte> frame) const {
    if (promisc || frame.size() < 6) return true;
    std::array<std::uint8_t, 6> dst{};
    for (unsigned i = 0; i < 6; ++i) dst[i] = static_cast<std::uint8_t>(frame[i]);
    if ((dst[0] & 1) == 0) return dst == mac;
    if (dst == std::array<std::uint8_t, 6>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) return true;
    if (allmulti || multi_overflow) return true;
    for (const auto& entry : multicast_table) {
      if (entry == dst) return true;
    }
    return false;
  }
  // A frame from the wire: into the next posted RX buffer behind a header
  // whose flags byte is `header_flags` (0, or DATA_VALID = 2 / NEEDS_CSUM = 1
  // as a device with GUEST_CSUM sets them), or dropped if none is posted.
  bool deliver(std::span<const std::byte> frame, std::uint8_t header_flags = 0) {
    if (!accepts(frame)) {
      ++rx_filtered;
      return false;
    }
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
        return queue_sel_ < 3 ? queues_[queue_sel_].pfn : 0;
      case MmioReg::kQueueNumMax:
        if (queue_sel_ == 2) return (offered & feature(17)) != 0 ? ctrl_num_max : 0;
        return queue_sel_ < 2 ? queue_num_max : 0;
      case MmioReg::kQueueReady:
        return queue_sel_ < 3 ? queues_[queue_sel_].ready : 0;
      case MmioReg::kInterruptStatus:
        ++interrupt_status_reads;
        return interrupt_status_;
      case MmioReg::kStatus:
        ++status_reads;
        return status;
      case MmioReg::kConfigGeneration:
        return restless_config ? ++generation_ : generation_;
      default:
        return 0;
    }
  }

  void write(std::uint32_t offset, std::uint32_t value) {
    auto* q = queue_sel_ < 3 ? &queues_[queue_sel_] : nullptr;
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
        if (value < 3) ++notifies[value];
        if (value == 1 && consume_tx_on_notify) consume_tx();
        if (value == 2 && ctrl_answers) run_commands();
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
  // QEMU's virtio_net_handle_ctrl(): each chain, its ack written.
  void run_commands() {
    auto& ctrl = devices_[2];
    if (!ctrl) return;
    while (ctrl->pending() != 0) {
      auto chain = ctrl->take_chain();
      std::uint8_t ack = 1;  // VIRTIO_NET_ERR
      if (chain.well_formed && chain.writable_len >= 1 && chain.readable.size() >= 2) {
        ++ctrl_commands;
        // A refusing device (ctrl_ack != OK) changes nothing.
        ack = ctrl_ack != 0 ? ctrl_ack
              : command(static_cast<std::uint8_t>(chain.readable[0]),
                        static_cast<std::uint8_t>(chain.readable[1]),
                        std::span<const std::byte>(chain.readable).subspan(2))
                  ? 0
                  : 1;
        *chain.writable = std::byte{ack};
      } else {
        ++ctrl_malformed;
      }
      ctrl->complete(chain.head, chain.writable != nullptr ? 1 : 0);
    }
  }
  bool command(std::uint8_t cls, std::uint8_t cmd, std::span<const std::byte> data) {
    if (cls == 0 && cmd <= 1) {  // VIRTIO_NET_CTRL_RX: PROMISC, ALLMULTI
      if (data.size() != 1) return false;
      (cmd == 0 ? promisc : allmulti) = data[0] != std::byte{0};
      return true;
    }
    if (cls == 1 && cmd == 0) {  // VIRTIO_NET_CTRL_MAC_TABLE_SET
      auto le32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (unsigned i = 0; i < 4; ++i)
          v |= std::uint32_t{static_cast<std::uint8_t>(data[at + i])} << (8 * i);
        return v;
      };
      if (data.size() < 4) return false;
      const std::size_t uni = le32(0);
      std::size_t at = 4 + 6 * uni;
      if (data.size() < at + 4) return false;
      const std::size_t multi = le32(at);
      at += 4;
      if (data.size() != at + 6 * multi) return false;
      multicast_table.clear();
      multi_overflow = multi > kMacTableEntries;
      for (std::size_t i = 0; i < multi && !multi_overflow; ++i) {
        std::array<std::uint8_t, 6> entry{};
        for (unsigned b = 0; b < 6; ++b) entry[b] = static_cast<std::uint8_t>(data[at + 6 * i + b]);
        multicast_table.push_back(entry);
      }
      return true;
    }
    return false;
  }

  void reset() {
    promisc = true;
    allmulti = false;
    multi_overflow = false;
    multicast_table.clear();
    status = 0;
    interrupt_status_ = 0;
    driver_features = 0;
    queues_ = {};
    devices_[0].reset();
    devices_[1].reset();
    devices_[2].reset();
  }

  std::uint32_t features_sel_ = 0;
  std::uint32_t driver_features_sel_ = 0;
  std::uint32_t queue_sel_ = 0;
  std::uint32_t interrupt_status_ = 0;
  std::uint32_t generation_ = 0;
  std::array<Queue, 3> queues_{};
  std::array<std::optional<FakeQueueDevice>, 3> devices_;
};

}  // namespace starling::virtio::testing

#endif  // STARLING_DRIVERS_VIRTIO_MODEL_FAKE_NET_DEVICE_H_
