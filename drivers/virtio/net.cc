#include "drivers/virtio/net.h"

#include <cstring>

#include "drivers/irq/irq.h"
#include "drivers/virtio/barrier.h"
#include "kernel/console/console.h"

namespace starling::virtio {
namespace {

// virtio-net device config (§5.1.4): mac[6] at 0, status u16 at 6.
constexpr std::uint32_t kConfigMac = 0;
constexpr std::uint32_t kConfigStatus = 6;
constexpr std::uint16_t kLinkUp = 1;

constexpr std::uint32_t kRxQueue = 0;
constexpr std::uint32_t kTxQueue = 1;

// Ring layout of a queue of `size` entries: the legacy one (§2.6.2 legacy
// interface: descriptors, avail right after, used at the next QueueAlign
// boundary), which a modern device accepts as three separate addresses.
// 256 entries: descriptors 4096, avail 518 at 4096, used 2054 at 8192.
constexpr std::size_t kQueueAlign = mem::kPageSize;
constexpr std::size_t kRingPages = 3;
constexpr std::size_t avail_offset(std::uint16_t size) {
  return SplitQueue::descriptor_bytes(size);
}
constexpr std::size_t used_offset(std::uint16_t size) {
  return (avail_offset(size) + SplitQueue::avail_bytes(size) + kQueueAlign - 1) &
         ~(kQueueAlign - 1);
}
static_assert(used_offset(Net::kQueueSize) + SplitQueue::used_bytes(Net::kQueueSize) <=
              kRingPages * mem::kPageSize);
constexpr std::size_t kBufferPages = Net::kQueueSize * Net::kBufferBytes / mem::kPageSize;

// Bounded waits on the device (a reset completing).
constexpr int kResetPolls = 1'000'000;

// Trap context: only mark the device ready (irq:: leaves the source masked
// until wait_for_work() has acknowledged the device).
void on_interrupt(void* source) {
  static_cast<async::InterruptSource*>(source)->signal();
}

std::uint16_t largest_power_of_two_at_most(std::uint32_t n) {
  std::uint32_t p = 1;
  while (p * 2 <= n && p * 2 <= SplitQueue::kMaxSize) p *= 2;
  return static_cast<std::uint16_t>(p);
}

}  // namespace

bool Net::is_net_device(const MmioDevice& device) {
  const std::uint32_t version = device.read(MmioReg::kVersion);
  return device.read(MmioReg::kMagicValue) == kMagic &&
         (version == kVersionLegacy || version == kVersionModern) &&
         device.read(MmioReg::kDeviceId) == kDeviceIdNet;
}

Result<void> Net::init(const Config& config, mem::PageAllocator& pages) {
  device_ = MmioDevice(config.base, config.model);
  irq_ = config.irq;
  if (!is_net_device(device_)) return Unexpected(Error::kNotFound);
  legacy_ = device_.read(MmioReg::kVersion) == kVersionLegacy;
  header_bytes_ = legacy_ ? kLegacyHeaderBytes : kHeaderBytes;
  if (rx_memory_.rings == 0) {
    if (auto ok = allocate(pages, &rx_memory_); !ok.ok()) return ok;
    if (auto ok = allocate(pages, &tx_memory_); !ok.ok()) return ok;
  }
  if (auto ok = start_device(); !ok.ok()) return ok;
  if (!attached_) {
    if (auto ok = irq::attach(irq_, &on_interrupt, &interrupt_); !ok.ok()) return ok;
    attached_ = true;
  }
  return {};
}

Result<void> Net::allocate(mem::PageAllocator& pages, QueueMemory* memory) {
  auto rings = pages.allocate(kRingPages);
  if (!rings.ok()) return Unexpected(rings.error());
  auto buffers = pages.allocate(kBufferPages);
  if (!buffers.ok()) return Unexpected(buffers.error());
  memory->rings = *rings;
  memory->buffers = *buffers;
  return {};
}

// virtio 1.1 §3.1.1, in order.
Result<void> Net::start_device() {
  device_.write(MmioReg::kStatus, 0);  // reset
  int polls = 0;
  while (device_.read(MmioReg::kStatus) != 0) {
    if (++polls == kResetPolls) return Unexpected(Error::kDeviceError);
  }
  device_.add_status(kStatusAcknowledge);
  device_.add_status(kStatusDriver);
  if (legacy_) {
    negotiate_legacy();
  } else if (auto ok = negotiate_modern(); !ok.ok()) {
    return ok;
  }

  // TX ids with the device at a reset are frames that will never be sent.
  stats_.tx_drops += tx_.with_device();
  if (auto ok = setup_queue(kRxQueue, rx_memory_, rx_, SplitQueue::Direction::kDeviceWrites);
      !ok.ok()) {
    return ok;
  }
  if (auto ok = setup_queue(kTxQueue, tx_memory_, tx_, SplitQueue::Direction::kDeviceReads);
      !ok.ok()) {
    return ok;
  }
  // Every RX buffer not held by the stack goes to the device.
  while (auto id = rx_.take_free()) (void)rx_.post(*id, kBufferBytes);
  const bool rx_notify = rx_.publish();
  rx_posted_ = false;
  // The stack drains RX with interrupts off; wait_for_work() turns them on.
  // TX completions are collected lazily: no interrupt unless the ring fills.
  rx_.disable_interrupts();
  tx_.disable_interrupts();

  read_config();
  // Ring setup before the device may start using the rings.
  barrier::before_mmio_write();
  device_.add_status(kStatusDriverOk);
  if (rx_notify) notify(kRxQueue);
  return {};
}

Result<void> Net::negotiate_modern() {
  const std::uint64_t offered = device_.device_features();
  if ((offered & kFeatureVersion1) == 0) {
    device_.add_status(kStatusFailed);
    return Unexpected(Error::kUnsupported);
  }
  features_ = offered & (kFeatureVersion1 | kFeatureMac | kFeatureStatus);
  device_.set_driver_features(features_);
  device_.add_status(kStatusFeaturesOk);
  if ((device_.read(MmioReg::kStatus) & kStatusFeaturesOk) ==
      0) {  // re-read: the device may refuse
    device_.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  return {};
}

// Legacy: one 32-bit feature word, no FEATURES_OK; the page size the
// QueuePFN values are in.
void Net::negotiate_legacy() {
  device_.write(MmioReg::kDeviceFeaturesSel, 0);
  const std::uint64_t offered = device_.read(MmioReg::kDeviceFeatures);
  features_ = offered & (kFeatureMac | kFeatureStatus);
  device_.write(MmioReg::kDriverFeaturesSel, 0);
  device_.write(MmioReg::kDriverFeatures, static_cast<std::uint32_t>(features_));
  device_.write(MmioReg::kGuestPageSize, static_cast<std::uint32_t>(mem::kPageSize));
}

Result<void> Net::setup_queue(std::uint32_t index, const QueueMemory& memory, SplitQueue& queue,
                              SplitQueue::Direction direction) {
  device_.write(MmioReg::kQueueSel, index);
  // A queue already in use (after our reset) is a device in a bad state.
  if (device_.read(legacy_ ? MmioReg::kQueuePfn : MmioReg::kQueueReady) != 0) {
    device_.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  const std::uint32_t max = device_.read(MmioReg::kQueueNumMax);
  if (max == 0) {
    device_.add_status(kStatusFailed);
    return Unexpected(Error::kDeviceError);
  }
  const std::uint16_t size = largest_power_of_two_at_most(max);
  std::byte* rings = mem::to_pointer(memory.rings);
  const SplitQueue::Memory layout{.descriptors = rings,
                                  .avail = rings + avail_offset(size),
                                  .used = rings + used_offset(size),
                                  .buffers_cpu = mem::to_pointer(memory.buffers),
                                  .buffers_phys = memory.buffers,
                                  .buffer_bytes = kBufferBytes};
  if (auto ok = queue.init(layout, size, direction); !ok.ok()) return ok;

  device_.write(MmioReg::kQueueNum, size);
  if (legacy_) {
    // QueuePFN is 32 bits of 4 KiB pages: rings must lie below 16 TiB.
    if (memory.rings / mem::kPageSize > 0xFFFF'FFFFu) {
      device_.add_status(kStatusFailed);
      return Unexpected(Error::kUnsupported);
    }
    device_.write(MmioReg::kQueueAlign, static_cast<std::uint32_t>(kQueueAlign));
    // The zeroed rings before the PFN store that turns the queue on.
    barrier::before_mmio_write();
    device_.write(MmioReg::kQueuePfn, static_cast<std::uint32_t>(memory.rings / mem::kPageSize));
    return {};
  }
  const mem::PhysAddr desc = memory.rings;
  const mem::PhysAddr avail = memory.rings + avail_offset(size);
  const mem::PhysAddr used = memory.rings + used_offset(size);
  device_.write(MmioReg::kQueueDescLow, static_cast<std::uint32_t>(desc));
  device_.write(MmioReg::kQueueDescHigh, static_cast<std::uint32_t>(desc >> 32));
  device_.write(MmioReg::kQueueDriverLow, static_cast<std::uint32_t>(avail));
  device_.write(MmioReg::kQueueDriverHigh, static_cast<std::uint32_t>(avail >> 32));
  device_.write(MmioReg::kQueueDeviceLow, static_cast<std::uint32_t>(used));
  device_.write(MmioReg::kQueueDeviceHigh, static_cast<std::uint32_t>(used >> 32));
  // The zeroed rings before QueueReady lets the device read them.
  barrier::before_mmio_write();
  device_.write(MmioReg::kQueueReady, 1);
  return {};
}

void Net::read_config() {
  // ConfigGeneration brackets a consistent read (§4.2.2.2).
  std::uint32_t generation = 0;
  do {
    generation = device_.read(MmioReg::kConfigGeneration);
    if ((features_ & kFeatureMac) != 0) {
      for (std::uint32_t i = 0; i < 6; ++i) mac_.bytes[i] = device_.read_config8(kConfigMac + i);
    }
    // Without STATUS the link is assumed up (§5.1.4.2).
    link_ =
        (features_ & kFeatureStatus) == 0 || (device_.read_config16(kConfigStatus) & kLinkUp) != 0
            ? hal::LinkState::kUp
            : hal::LinkState::kDown;
  } while (generation != device_.read(MmioReg::kConfigGeneration));
}

void Net::notify(std::uint32_t queue) const {
  // The avail idx store (done in publish()) before the doorbell.
  barrier::before_mmio_write();
  device_.write(MmioReg::kQueueNotify, queue);
}

Result<bool> Net::service_interrupt() {
  bool happened = false;
  const std::uint32_t causes = device_.read(MmioReg::kInterruptStatus);
  if (causes != 0) {
    device_.write(MmioReg::kInterruptAck, causes);  // lowers the line
    // InterruptStatus before the ring loads that follow.
    barrier::after_mmio_read();
  }
  if ((causes & kInterruptConfig) != 0) {
    ++stats_.config_changes;
    read_config();
    happened = true;
  }
  if ((device_.read(MmioReg::kStatus) & kStatusNeedsReset) != 0) {
    ++stats_.resets;
    console::print("virtio-net: device needs reset; resetting\n");
    if (auto ok = start_device(); !ok.ok()) return Unexpected(ok.error());
    happened = true;
  }
  return happened;
}

async::Task<void> Net::wait_for_work() {
  for (;;) {
    auto serviced = service_interrupt();
    if (!serviced.ok()) co_return Unexpected(serviced.error());
    const bool tx_full = tx_.free_count() == 0;
    if (*serviced || rx_.has_used() || (tx_full && tx_.has_used())) break;
    // Interrupts on, then one more look before sleeping.
    bool work = rx_.enable_interrupts();
    if (tx_full) work = tx_.enable_interrupts() || work;
    if (work) break;
    irq::unmask(irq_);
    co_await interrupt_.wait();
    ++stats_.interrupts;
  }
  rx_.disable_interrupts();
  tx_.disable_interrupts();
  co_return {};
}

void Net::post_rx(std::uint16_t id) {
  (void)rx_.post(id, kBufferBytes);  // id is held: cannot fail
  rx_posted_ = true;
}

std::size_t Net::receive(std::span<hal::RxFrame> out) {
  std::size_t count = 0;
  while (count < out.size()) {
    auto done = rx_.pop_used();
    if (!done) break;
    if (!done->len_ok) {  // longer than the buffer: counted by the queue, never trusted
      post_rx(done->id);
      continue;
    }
    if (done->len < header_bytes_ + 14) {  // no room for an Ethernet header
      ++stats_.rx_drops;
      post_rx(done->id);
      continue;
    }
    const std::uint32_t frame_bytes = done->len - header_bytes_;
    out[count++] = hal::RxFrame{.data = rx_.buffer(done->id).subspan(header_bytes_, frame_bytes),
                                .handle = done->id};
    ++stats_.rx_frames;
    stats_.rx_bytes += frame_bytes;
  }
  // Bad ids and lengths are counted by the queue itself.
  stats_.rx_errors = rx_.errors();
  if (rx_posted_) {
    rx_posted_ = false;
    if (rx_.publish()) notify(kRxQueue);
  }
  return count;
}

Result<void> Net::release(hal::RxHandle handle) {
  if (handle >= rx_.size() || !rx_.is_held(static_cast<std::uint16_t>(handle))) {
    return Unexpected(Error::kInvalidArgument);
  }
  post_rx(static_cast<std::uint16_t>(handle));
  rx_posted_ = false;
  if (rx_.publish()) notify(kRxQueue);
  return {};
}

Result<void> Net::release(std::span<const hal::RxHandle> handles) {
  Result<void> result;
  for (const hal::RxHandle handle : handles) {
    if (handle >= rx_.size() || !rx_.is_held(static_cast<std::uint16_t>(handle))) {
      result = Unexpected(Error::kInvalidArgument);
      continue;
    }
    post_rx(static_cast<std::uint16_t>(handle));
  }
  if (rx_posted_) {
    rx_posted_ = false;
    if (rx_.publish()) notify(kRxQueue);
  }
  return result;
}

void Net::reclaim_tx() {
  while (auto done = tx_.pop_used()) (void)tx_.put_free(done->id);
}

void Net::fill_tx(std::uint16_t id, std::span<const hal::TxFragment> fragments,
                  std::uint32_t bytes) {
  // The copy is cheapest when source and destination share their offset
  // within a word (memcpy then moves whole aligned words): start the header
  // 0-7 bytes into the buffer so the largest fragment (an echoed payload,
  // wherever the stack left it) lands co-aligned. The buffer has room:
  // 7 + header + kMaxFrameBytes < kBufferBytes.
  std::size_t before_largest = 0;
  std::size_t largest = 0;
  std::uintptr_t largest_source = 0;
  for (std::size_t i = 0, at = 0; i < fragments.size(); at += fragments[i].size(), ++i) {
    if (fragments[i].size() > largest) {
      largest = fragments[i].size();
      largest_source = reinterpret_cast<std::uintptr_t>(fragments[i].data());
      before_largest = at;
    }
  }
  std::byte* buffer = tx_.buffer(id).data();
  const std::uintptr_t natural =
      reinterpret_cast<std::uintptr_t>(buffer) + header_bytes_ + before_largest;
  const auto offset = static_cast<std::uint32_t>((largest_source - natural) % kTxAlignment);
  std::memset(buffer + offset, 0, header_bytes_);  // no offloads: an all-zero header
  std::byte* at = buffer + offset + header_bytes_;
  for (const hal::TxFragment& fragment : fragments) {
    if (fragment.empty()) continue;
    std::memcpy(at, fragment.data(), fragment.size());  // the one copy
    at += fragment.size();
  }
  (void)tx_.post(id, header_bytes_ + bytes, offset);  // id is held, it fits: cannot fail
  ++stats_.tx_frames;
  stats_.tx_bytes += bytes;
}

Result<std::size_t> Net::transmit(std::span<const std::span<const std::byte>> frames) {
  reclaim_tx();
  std::size_t count = 0;
  Result<std::size_t> result = std::size_t{0};
  for (const auto& frame : frames) {
    if (frame.empty() || frame.size() > hal::kMaxFrameBytes) {
      if (count == 0) result = Unexpected(Error::kInvalidArgument);
      break;
    }
    auto id = tx_.take_free();
    if (!id) {
      if (count == 0) {
        ++stats_.tx_busy;
        result = Unexpected(Error::kBusy);
      }
      break;
    }
    fill_tx(*id, std::span(&frame, 1), static_cast<std::uint32_t>(frame.size()));
    ++count;
  }
  if (count != 0) {
    if (tx_.publish()) notify(kTxQueue);
    result = count;
  }
  stats_.tx_errors = tx_.errors();
  return result;
}

Result<void> Net::transmit_gather(std::span<const hal::TxFragment> fragments) {
  // The whole frame is checked before a buffer is taken or a byte written.
  std::size_t bytes = 0;
  for (const hal::TxFragment& fragment : fragments) {
    bytes += fragment.size();
    if (bytes > hal::kMaxFrameBytes) return Unexpected(Error::kInvalidArgument);
  }
  if (bytes == 0) return Unexpected(Error::kInvalidArgument);
  reclaim_tx();
  auto id = tx_.take_free();
  stats_.tx_errors = tx_.errors();
  if (!id) {
    ++stats_.tx_busy;
    return Unexpected(Error::kBusy);
  }
  fill_tx(*id, fragments, static_cast<std::uint32_t>(bytes));
  if (tx_.publish()) notify(kTxQueue);
  return {};
}

}  // namespace starling::virtio
