#include "drivers/virtio/net.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "drivers/irq/irq.h"
#include "drivers/nic/partial_checksum.h"
#include "drivers/virtio/barrier.h"
#include "drivers/virtio/transport.h"
#include "kernel/console/console.h"
#include "kernel/console/report_limit.h"

namespace starling::virtio {
namespace {

// virtio-net device config (§5.1.4): mac[6] at 0, status u16 at 6.
constexpr std::uint32_t kConfigMac = 0;
constexpr std::uint32_t kConfigStatus = 6;
constexpr std::uint16_t kLinkUp = 1;

// virtio_net_hdr (§5.1.6): flags u8, gso_type u8, hdr_len, gso_size,
// csum_start, csum_offset (le16 each), then num_buffers with VERSION_1.
constexpr std::uint32_t kHdrFlags = 0;
constexpr std::uint32_t kHdrCsumStart = 6;
constexpr std::uint32_t kHdrCsumOffset = 8;
constexpr std::uint8_t kHdrNeedsCsum = 1;
constexpr std::uint8_t kHdrDataValid = 2;

void put_le16(std::byte* at, std::uint16_t value) {
  at[0] = static_cast<std::byte>(value);
  at[1] = static_cast<std::byte>(value >> 8);
}

constexpr std::uint32_t kRxQueue = 0;
constexpr std::uint32_t kTxQueue = 1;
constexpr std::uint32_t kCtrlQueue = 2;  // without MQ (§5.1.2)

// Control commands (§5.1.6.5): class, command, data, then the device's ack.
constexpr std::uint8_t kCtrlRx = 0;
constexpr std::uint8_t kCtrlRxPromisc = 0;
constexpr std::uint8_t kCtrlRxAllMulti = 1;
constexpr std::uint8_t kCtrlMac = 1;
constexpr std::uint8_t kCtrlMacTableSet = 0;
constexpr std::uint8_t kCtrlOk = 0;
// Two descriptors in flight per command; the rings fit two pages, the two
// buffers one.
constexpr std::uint16_t kCtrlQueueSize = 2;
constexpr std::size_t kCtrlRingPages = 2;
static_assert(ring_bytes(kCtrlQueueSize) <= kCtrlRingPages * mem::kPageSize);
static_assert(kCtrlQueueSize * Net::kCtrlBufferBytes <= mem::kPageSize);
// The device answers a notify at once (QEMU inside the MMIO write); this
// bounds the wait for one that does not.
constexpr int kCtrlPolls = 100'000;

constexpr std::size_t kRingPages = 3;
static_assert(ring_bytes(Net::kQueueSize) <= kRingPages * mem::kPageSize);
constexpr std::size_t kBufferPages = Net::kQueueSize * Net::kBufferBytes / mem::kPageSize;

// ConfigGeneration re-reads before read_config() settles for what it has: a
// device whose generation never settles cannot keep the driver in a loop.
constexpr int kConfigReadTries = 16;

}  // namespace

// Trap context. The device is acknowledged here, as Linux's vm_interrupt
// does: InterruptStatus read and written back to InterruptACK (which lowers
// the line), the causes kept for service_device(). The task that wakes then
// reads no register at all on a frame's wake-up, where reading
// InterruptStatus there and again before the next sleep was two uncached
// reads per packet (docs/benchmarks.md, issue 49). The source stays claimed
// at the PLIC (irq::) until wait_for_work() unmasks it, so a cause raised in
// between interrupts again then.
void Net::on_interrupt(void* self) {
  Net& net = *static_cast<Net*>(self);
  const std::uint32_t causes = net.acknowledge();
  if (causes != 0) net.pending_causes_.fetch_or(causes, std::memory_order_release);
  net.interrupt_.signal();
}

std::uint32_t Net::acknowledge() {
  const std::uint32_t causes = device_.read(MmioReg::kInterruptStatus);
  if (causes != 0) {
    device_.write(MmioReg::kInterruptAck, causes);  // lowers the line
    // InterruptStatus before the ring loads that follow.
    barrier::after_mmio_read();
  }
  return causes;
}

bool Net::is_net_device(const MmioDevice& device) {
  return is_virtio_device(device, kDeviceIdNet);
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
    auto rings = pages.allocate(kCtrlRingPages);
    if (!rings.ok()) return Unexpected(rings.error());
    auto buffers = pages.allocate(1);
    if (!buffers.ok()) return Unexpected(buffers.error());
    ctrl_memory_ = {.rings = *rings, .buffers = *buffers};
  }
  if (auto ok = start_device(); !ok.ok()) return ok;
  if (!attached_) {
    if (auto ok = irq::attach(irq_, &Net::on_interrupt, this); !ok.ok()) return ok;
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
  if (auto ok = reset_and_acknowledge(device_); !ok.ok()) return ok;
  constexpr std::uint64_t kWanted = kFeatureCsum | kFeatureGuestCsum | kFeatureMac |
                                    kFeatureStatus | kFeatureCtrlVq | kFeatureCtrlRx |
                                    kFeatureAnyLayout;
  if (auto ok = negotiate(device_, legacy_, kWanted, &features_); !ok.ok()) {
    return ok;
  }

  // TX ids with the device at a reset are frames that will never be sent.
  stats_.tx_drops += tx_.with_device();
  if (auto ok = attach_queue(kRxQueue, rx_memory_, rx_, SplitQueue::Direction::kDeviceWrites);
      !ok.ok()) {
    return ok;
  }
  if (auto ok = attach_queue(kTxQueue, tx_memory_, tx_, SplitQueue::Direction::kDeviceReads);
      !ok.ok()) {
    return ok;
  }
  if (auto ok = start_control_queue(); !ok.ok()) return ok;
  end_tx_loans_at_reset();
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
  // Commands only once the device is live (§3.1.1 step 8).
  program_filter();
  return {};
}

Result<void> Net::start_control_queue() {
  ctrl_usable_ = false;
  filtering_ = false;
  const bool negotiated = (features_ & kFeatureCtrlVq) != 0 && (features_ & kFeatureCtrlRx) != 0;
  // A legacy device without ANY_LAYOUT wants the header, data and ack each
  // in descriptors of their own; we send two and so leave such a device
  // promiscuous.
  if (!negotiated || (legacy_ && (features_ & kFeatureAnyLayout) == 0)) return {};
  const SplitQueue::Memory buffers{.buffers_cpu = mem::to_pointer(ctrl_memory_.buffers),
                                   .buffers_phys = ctrl_memory_.buffers,
                                   .buffer_bytes = kCtrlBufferBytes};
  if (auto ok = setup_queue(device_, legacy_, kCtrlQueue, ctrl_memory_.rings, buffers,
                            kCtrlQueueSize, ctrl_, SplitQueue::Direction::kDeviceReads);
      !ok.ok()) {
    return ok;
  }
  if (ctrl_.size() < 2) return {};  // a chain needs two descriptors
  ctrl_.disable_interrupts();       // answers are polled
  ctrl_usable_ = true;
  return {};
}

bool Net::send_command(std::uint8_t command_class, std::uint8_t command,
                       std::span<const std::byte> data) {
  if (!ctrl_usable_ || 2 + data.size() > kCtrlBufferBytes) return false;
  const auto head = ctrl_.take_free();
  const auto tail = ctrl_.take_free();
  if (!head || !tail) {  // an earlier command still with the device
    if (head) (void)ctrl_.put_free(*head);
    ctrl_usable_ = false;
    return false;
  }
  std::byte* out = ctrl_.buffer(*head).data();
  out[0] = static_cast<std::byte>(command_class);
  out[1] = static_cast<std::byte>(command);
  if (!data.empty()) std::memcpy(out + 2, data.data(), data.size());
  volatile std::byte* ack = ctrl_.buffer(*tail).data();
  *ack = std::byte{0xff};  // not an answer the device gives
  (void)ctrl_.post_chain(*head, static_cast<std::uint32_t>(2 + data.size()), *tail, 1);
  // Always ring: a command is rare, and the device's NO_NOTIFY hint is for
  // queues it is already polling.
  (void)ctrl_.publish();
  notify(kCtrlQueue);
  for (int polls = 0; polls < kCtrlPolls; ++polls) {
    auto done = ctrl_.pop_used();  // its barrier orders the ack load after the used idx
    if (!done) continue;
    const bool ok = done->id == *head && done->len_ok && *ack == std::byte{kCtrlOk};
    (void)ctrl_.put_free(*head);
    (void)ctrl_.put_free(*tail);
    return ok;
  }
  // Still with the device: no more commands until a reset takes them back.
  ctrl_usable_ = false;
  console::print(
      "virtio-net: the device did not answer a control command; its filter is "
      "left as it was until a reset\n");
  return false;
}

void Net::set_multicast_groups(std::span<const hal::MacAddress> groups) {
  groups_set_ = true;
  too_many_groups_ = groups.size() > groups_.size();
  group_count_ = too_many_groups_ ? 0 : groups.size();
  std::copy_n(groups.begin(), group_count_, groups_.begin());
  program_filter();
}

void Net::program_filter() {
  filtering_ = false;
  if (!ctrl_usable_) return;
  const std::byte off[1] = {std::byte{0}};
  const std::byte on[1] = {std::byte{1}};
  // Out of promiscuous mode first: a device that refuses still delivers
  // every frame, which the netif filters.
  if (!send_command(kCtrlRx, kCtrlRxPromisc, off)) {
    ++stats_.rx_filter_fallbacks;
    return;
  }
  if (groups_set_ && !too_many_groups_) {
    // virtio_net_ctrl_mac twice (§5.1.6.5.2): no unicast entries beyond our
    // own MAC (which the device always accepts), then the groups.
    std::array<std::byte, kCtrlBufferBytes - 2> table{};
    std::size_t at = 4;  // unicast entries: le32 0
    const auto n = static_cast<std::uint32_t>(group_count_);
    for (unsigned i = 0; i < 4; ++i) table[at + i] = static_cast<std::byte>(n >> (8 * i));
    at += 4;
    for (std::size_t g = 0; g < group_count_; ++g, at += 6) {
      std::memcpy(table.data() + at, groups_[g].bytes.data(), 6);
    }
    if (send_command(kCtrlMac, kCtrlMacTableSet, std::span<const std::byte>(table.data(), at)) &&
        send_command(kCtrlRx, kCtrlRxAllMulti, off)) {
      filtering_ = true;
      ++stats_.rx_filter_updates;
      return;
    }
  }
  // Not yet told the groups, too many of them, or the table refused.
  if (groups_set_) ++stats_.rx_filter_fallbacks;
  (void)send_command(kCtrlRx, kCtrlRxAllMulti, on);
}

Result<void> Net::attach_queue(std::uint32_t index, const QueueMemory& memory, SplitQueue& queue,
                               SplitQueue::Direction direction) {
  const SplitQueue::Memory buffers{.buffers_cpu = mem::to_pointer(memory.buffers),
                                   .buffers_phys = memory.buffers,
                                   .buffer_bytes = kBufferBytes};
  return setup_queue(device_, legacy_, index, memory.rings, buffers, kQueueSize, queue, direction);
}

void Net::read_config() {
  // ConfigGeneration brackets a consistent read (§4.2.2.2); bounded, and
  // counted when the device never let a read settle.
  std::uint32_t generation = 0;
  int tries = 0;
  do {
    if (++tries > kConfigReadTries) {
      ++stats_.config_unsettled;
      break;
    }
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

Result<bool> Net::service_config(std::uint32_t causes) {
  bool happened = false;
  if ((causes & kInterruptConfig) != 0) {
    ++stats_.config_changes;
    read_config();
    happened = true;
  }
  // A device sets DEVICE_NEEDS_RESET together with a configuration-change
  // interrupt (virtio 1.2 §2.1.2; QEMU's virtio_error() does both), so
  // Status is read only then, or while a reset that failed is still owed:
  // read on every wake it was two MMIO reads per echoed packet
  // (docs/benchmarks.md, "Where a packet's instructions and MMIO accesses go").
  if (((causes & kInterruptConfig) != 0 || reset_owed_) &&
      (device_.read(MmioReg::kStatus) & kStatusNeedsReset) != 0) {
    ++stats_.resets;
    if (console::worth_reporting(stats_.resets)) {
      console::print("virtio-net: device needs reset; resetting\n");
    }
    reset_owed_ = true;
    if (auto ok = start_device(); !ok.ok()) return Unexpected(ok.error());
    happened = true;
  }
  reset_owed_ = false;
  return happened;
}

void Net::post_rx(std::uint16_t id) {
  (void)rx_.post(id, kBufferBytes);  // id is held: cannot fail
  rx_posted_ = true;
}

std::size_t Net::receive_used(std::span<hal::RxFrame> out) {
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
    const std::span<std::byte> buffer = rx_.buffer(done->id);
    // Only a device that negotiated GUEST_CSUM may set these (§5.1.6.4).
    const bool vouched =
        (features_ & kFeatureGuestCsum) != 0 &&
        (static_cast<std::uint8_t>(buffer[kHdrFlags]) & (kHdrDataValid | kHdrNeedsCsum)) != 0;
    out[count++] = hal::RxFrame{.data = buffer.subspan(header_bytes_, frame_bytes),
                                .handle = done->id,
                                .checksum_verified = vouched};
    ++stats_.rx_frames;
    stats_.rx_bytes += frame_bytes;
  }
  // Bad ids and lengths are counted by the queue itself.
  stats_.rx_errors = rx_.errors();
  publish_rx();
  return count;
}

void Net::publish_rx() {
  if (!rx_posted_) return;
  rx_posted_ = false;
  if (rx_.publish()) notify(kRxQueue);
}

void Net::start_tx() {
  if (tx_.publish()) notify(kTxQueue);
}

void Net::reclaim_used_tx() {
  bool reposted = false;
  while (auto done = tx_.pop_used()) {
    if (const std::uint16_t loan = std::exchange(tx_loan_[done->id], 0); loan != 0) {
      reposted = end_loan(loan - 1u) || reposted;
    }
    (void)tx_.put_free(done->id);
  }
  stats_.tx_errors = tx_.errors();
  if (reposted) publish_rx();
}

void Net::end_tx_loans_at_reset() {
  // The RX buffers go back to the stack, or to the RX ring start_device()
  // is about to fill (end_loan reposts a released one: post_rx holds it
  // for the fill below).
  for (std::uint16_t& loan : tx_loan_) {
    if (loan != 0) (void)end_loan(std::exchange(loan, 0) - 1u);
  }
}

void Net::fill_tx(std::span<const hal::TxFragment> fragments, std::uint32_t bytes) {
  const std::uint16_t id = *tx_.take_free();  // tx_full() was false
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
  std::byte* header = buffer + offset;
  nic::copy_fragments(header + header_bytes_, fragments);
  write_tx_header(header, std::span<std::byte>(header + header_bytes_, bytes));
  (void)tx_.post(id, header_bytes_ + bytes, offset);  // id is held, it fits: cannot fail
  ++stats_.tx_frames;
  stats_.tx_bytes += bytes;
}

bool Net::can_send_in_place(hal::RxHandle handle, std::span<const std::byte> frame) const {
  if (handle >= rx_.size()) return false;
  return hal::frame_inside_buffer(rx_.buffer(static_cast<std::uint16_t>(handle)), frame,
                                  header_bytes_);
}

void Net::fill_tx_in_place(hal::RxHandle handle, std::span<std::byte> frame) {
  const std::uint16_t id = *tx_.take_free();         // tx_full() was false
  std::byte* header = frame.data() - header_bytes_;  // inside the buffer: can_send_in_place()
  write_tx_header(header, frame);
  const auto bytes = static_cast<std::uint32_t>(frame.size());
  const std::uint64_t offset =
      static_cast<std::uint64_t>(header - rx_.buffer(static_cast<std::uint16_t>(handle)).data());
  const mem::PhysAddr address = rx_memory_.buffers + std::uint64_t{handle} * kBufferBytes + offset;
  (void)tx_.post_at(id, address, header_bytes_ + bytes);  // held: cannot fail
  tx_loan_[id] = static_cast<std::uint16_t>(handle + 1u);
  ++stats_.tx_frames;
  stats_.tx_bytes += bytes;
}

void Net::write_tx_header(std::byte* header, std::span<std::byte> frame) const {
  // Constant sizes, stored inline (byte stores: `header` may sit anywhere in
  // a word); memset(header_bytes_) was a libcall of ~30 instructions a frame.
  if (legacy_) {
    __builtin_memset_inline(header, 0, kLegacyHeaderBytes);
  } else {
    __builtin_memset_inline(header, 0, kHeaderBytes);
  }
  if (!tx_checksum_offload().udp) return;
  // lwIP left the TCP/UDP checksum to us (enable_tx_checksum_offload()).
  if (auto partial = nic::prepare_partial_checksum(frame)) {
    header[kHdrFlags] = static_cast<std::byte>(kHdrNeedsCsum);
    put_le16(header + kHdrCsumStart, partial->start);
    put_le16(header + kHdrCsumOffset, partial->offset);
  }
}

}  // namespace starling::virtio
