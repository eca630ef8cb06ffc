#ifndef STARLING_DRIVERS_VIRTIO_NET_H_
#define STARLING_DRIVERS_VIRTIO_NET_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivers/nic/ring_driver.h"
#include "drivers/virtio/mmio.h"
#include "drivers/virtio/virtqueue.h"
#include "kernel/async/interrupt_source.h"
#include "kernel/async/task.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"

// virtio-net over virtio-mmio: queue 0 receives, queue 1 transmits (virtio
// 1.1 §5.1). Modern (version 2): VERSION_1 required, MAC and STATUS when
// offered, FEATURES_OK checked; every buffer carries the 12-byte
// virtio_net_hdr. Legacy (version 1, QEMU's default): MAC and STATUS, no
// FEATURES_OK step, rings given by page number, a 10-byte header. Neither
// takes MRG_RXBUF, EVENT_IDX or any segmentation offload: one whole frame
// per buffer.
//
// Checksum offload, when the device offers it (QEMU does with a TAP backend
// that has vnet headers, not with user networking): CSUM, the device
// completes TCP/UDP checksums of the frames we send (fill_tx leaves the
// pseudo-header sum and sets NEEDS_CSUM, drivers/nic/partial_checksum.h; the
// netif turns lwIP's GEN_UDP/GEN_TCP off through
// enable_tx_checksum_offload(); until then frames go exactly as given);
// GUEST_CSUM, the device marks received frames whose checksum it vouches
// for (DATA_VALID, or NEEDS_CSUM: a host stack's packet that was never
// checksummed because it never crossed a wire), reported as
// RxFrame::checksum_verified; the netif skips lwIP's check for those only.
//
// The receive filter, when the device offers a control queue with CTRL_RX
// (QEMU does; a modern device, or a legacy one with ANY_LAYOUT so a command
// may share a descriptor with its data): promiscuous off (a device resets
// into promiscuous mode, §5.1.6.5.1), then the multicast MAC table holds the
// groups the stack joined, so the device drops other group frames and
// unicast not for us before they take an RX buffer. Until the stack names
// its groups, and whenever they do not fit the table or the device refuses
// the table, ALLMULTI instead (counted in rx_filter_fallbacks): every group
// frame arrives and the netif's filter drops what was not joined, as it
// does on a device without the control queue (every frame arrives there).
// Commands run synchronously (the device answers a notify at once; QEMU
// handles it inside the MMIO write) with a bounded wait; a device that
// never answers loses its control queue until the next reset. After a
// device reset the filter is programmed again.
//
// Memory (page allocator, once, kept across device resets): per queue three
// pages of rings laid out as legacy requires and modern accepts
// (descriptors, then avail right after them, used at the next 4 KiB
// boundary) and 256 buffers of 2 KiB (header + up to 2036 bytes).
//
// TX is one copy: transmit() and transmit_gather() copy the frame (its
// fragments one after the other) straight from the caller's memory into the
// DMA buffer behind the header; there is no staging buffer. Or none:
// transmit_in_place() points a TX descriptor at the RX buffer itself, the
// virtio_net_hdr written over the bytes just before the frame (the RX
// buffer's own header, or headers the stack has stripped), and the RX
// buffer goes back to the RX ring when that descriptor is used
// (nic::RingDriver's loans).
//
// Interrupts: the PLIC source (irq::, one-shot) runs on_interrupt(), which
// acknowledges InterruptStatus in the trap and signals an InterruptSource;
// wait_for_work() handles the causes (config changes, DEVICE_NEEDS_RESET), and sleeps only after
// turning queue interrupts back on and finding nothing. While the stack is draining, RX interrupts
// are off (VIRTQ_AVAIL_F_NO_INTERRUPT); TX interrupts are on only while the TX ring is full and
// someone waits for room.
namespace starling::virtio {

class Net : public nic::RingDriver<Net, SplitQueue::kMaxSize> {
 public:
  static constexpr std::uint16_t kQueueSize = SplitQueue::kMaxSize;
  static constexpr std::uint32_t kBufferBytes = 2048;
  static constexpr std::uint32_t kHeaderBytes = 12;               // virtio_net_hdr with VERSION_1
  static constexpr std::uint32_t kLegacyHeaderBytes = 10;         // ... without (and no MRG_RXBUF)
  static constexpr std::uint64_t kFeatureCsum = feature(0);       // device completes TX checksums
  static constexpr std::uint64_t kFeatureGuestCsum = feature(1);  // device vouches for RX checksums
  static constexpr std::uint64_t kFeatureMac = feature(5);
  // TX frames start up to kTxAlignment - 1 bytes into their buffer (fill_tx).
  static constexpr std::uint32_t kTxAlignment = 8;
  static_assert(kTxAlignment - 1 + kHeaderBytes + hal::kMaxFrameBytes <= kBufferBytes);
  static constexpr std::uint64_t kFeatureStatus = feature(16);
  static constexpr std::uint64_t kFeatureCtrlVq = feature(17);
  static constexpr std::uint64_t kFeatureCtrlRx = feature(18);
  static constexpr std::uint64_t kFeatureAnyLayout = feature(27);  // legacy only
  // Groups the multicast MAC table takes from us: the command's data must
  // fit a control buffer. More than this: ALLMULTI.
  static constexpr std::uint32_t kCtrlBufferBytes = 256;
  static constexpr std::size_t kMaxFilterGroups = (kCtrlBufferBytes - 2 - 8) / 6;

  struct Config {
    std::uintptr_t base = 0;             // the virtio-mmio slot
    std::uint32_t irq = 0;               // its PLIC source
    mmio::RegisterBus* model = nullptr;  // host tests only: a device model instead of registers
  };

  Net() = default;
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;

  // Whether `base` holds a virtio-net device, of either version.
  static bool is_net_device(const MmioDevice& device);

  // Negotiates, sets up both queues, posts every RX buffer, attaches the
  // interrupt. kNotFound: no virtio-net there; kUnsupported: a modern
  // device without VERSION_1; kDeviceError: the device rejected FEATURES_OK
  // or a queue (Status FAILED set); kNoMemory: no pages for rings and buffers.
  Result<void> init(const Config& config, mem::PageAllocator& pages);

  // hal::Nic. transmit(), transmit_gather() and release() are the shared
  // ring policy (drivers/nic/ring_driver.h); each frame is copied once into
  // its TX buffer right after the zeroed virtio_net_hdr (12 or 10 bytes).
  // Inline for the look that finds nothing (every wake ends with one): out
  // of line it cost ~40 instructions, a frame and ten saved registers, to
  // learn that the used index had not moved.
  std::size_t receive(std::span<hal::RxFrame> out) {
    if (!rx_.has_used() && !rx_posted_) return 0;
    return receive_used(out);
  }
  hal::TxChecksumOffload enable_tx_checksum_offload() {
    tx_checksum_ = true;
    return tx_checksum_offload();
  }
  hal::TxChecksumOffload tx_checksum_offload() const {
    const bool on = tx_checksum_ && (features_ & kFeatureCsum) != 0;
    return {.udp = on, .tcp = on};
  }
  // The device's multicast MAC table, where it has a control queue (above).
  void set_multicast_groups(std::span<const hal::MacAddress> groups);
  // Whether the device filters for us: false means it delivers every
  // multicast frame (no control queue, or ALLMULTI), or every frame.
  bool filters_multicast() const { return filtering_; }
  hal::MacAddress mac() const { return mac_; }
  hal::LinkState link() const { return link_; }
  const hal::NicStats& stats() const { return stats_; }

  std::uint64_t features() const { return features_; }
  bool legacy() const { return legacy_; }
  std::uint16_t rx_queue_size() const { return rx_.size(); }
  std::uint16_t tx_queue_size() const { return tx_.size(); }
  bool has_control_queue() const { return ctrl_usable_; }

 private:
  // The interrupt handler (trap context); `self` is the Net.
  static void on_interrupt(void* self);
  // Reads InterruptStatus and writes what it found to InterruptACK (the
  // handler's work; service_device()'s when the device is polled).
  std::uint32_t acknowledge();
  struct QueueMemory {
    mem::PhysAddr rings = 0;
    mem::PhysAddr buffers = 0;
  };
  Result<void> allocate(mem::PageAllocator& pages, QueueMemory* memory);
  Result<void> start_device();  // reset .. DRIVER_OK
  Result<void> attach_queue(std::uint32_t index, const QueueMemory& memory, SplitQueue& queue,
                            SplitQueue::Direction direction);
  void read_config();
  // The control queue, when negotiated and usable (see above).
  Result<void> start_control_queue();
  // One command (virtio 1.1 §5.1.6.5): class, command, data; true if the
  // device answered VIRTIO_NET_OK.
  bool send_command(std::uint8_t command_class, std::uint8_t command,
                    std::span<const std::byte> data);
  // The filter for groups_ (all multicast if groups_ is unset or too long).
  void program_filter();
  void notify(std::uint32_t queue) const;
  void post_rx(std::uint16_t id);

  // The ring operations nic::RingDriver runs the policy on (shown in
  // docs/adding-a-driver.md, which test/lint/doc_snippets.py keeps exact).
  // snippet-begin: ring-operations
  friend class nic::RingDriver<Net, SplitQueue::kMaxSize>;
  // Inline: most calls find no completion (a packet's send reclaims once
  // in the look before and once more in transmit()); the empty call out of
  // line cost ~50 instructions.
  void reclaim_tx() {
    if (tx_.has_used()) reclaim_used_tx();
  }
  bool tx_full() const { return tx_.free_count() == 0; }
  // The header (NEEDS_CSUM and where, with CSUM taken and a TCP/UDP frame;
  // else all zero), then the fragments (`bytes` in all, already checked to
  // fit), into a free TX buffer, posted (not yet published).
  void fill_tx(std::span<const hal::TxFragment> fragments, std::uint32_t bytes);
  // In place: the frame starts at least header_bytes_ into its RX buffer.
  bool can_send_in_place(hal::RxHandle handle, std::span<const std::byte> frame) const;
  void fill_tx_in_place(hal::RxHandle handle, std::span<std::byte> frame);
  // The virtio_net_hdr at `header` for the frame right behind it.
  void write_tx_header(std::byte* header, std::span<std::byte> frame) const;
  // TX ids whose descriptor points at an RX buffer end those loans.
  void end_tx_loans_at_reset();
  void start_tx();
  bool rx_held(hal::RxHandle handle) const {
    return handle < rx_.size() && rx_.is_held(static_cast<std::uint16_t>(handle));
  }
  void repost_rx(hal::RxHandle handle) { post_rx(static_cast<std::uint16_t>(handle)); }
  void publish_rx();
  // receive() and reclaim_tx() once the used ring has entries (or reposted
  // buffers wait to be published).
  std::size_t receive_used(std::span<hal::RxFrame> out);
  void reclaim_used_tx();
  hal::NicStats& nic_stats() { return stats_; }
  // Acknowledges the device's interrupt causes; handles config changes and
  // a device that needs a reset. True if anything happened the caller must see.
  // Inline up to the usual answer, ring work only (out of line, with the
  // rare path inside, it cost ~38 instructions a look).
  Result<bool> service_device() {
    // What the trap acknowledged (on_interrupt): one atomic swap, which a
    // trap cannot split (masking interrupts around a plain exchange cost
    // ~50 instructions a wake-up, two out-of-line calls). No interrupt
    // line: the device is polled.
    const std::uint32_t causes =
        irq_ != 0 ? pending_causes_.exchange(0, std::memory_order_acquire) : acknowledge();
    if ((causes & kInterruptConfig) == 0 && !reset_owed_) return false;
    return service_config(causes);
  }
  // A configuration change, or a reset owed: the rest of service_device().
  Result<bool> service_config(std::uint32_t causes);
  bool rings_ready() const { return true; }
  bool rx_ready() const { return rx_.has_used(); }
  // VIRTQ_AVAIL_F_NO_INTERRUPT cleared; true if a buffer was used meanwhile.
  bool arm_interrupts(bool tx_full) {
    bool work = rx_.enable_interrupts();
    if (tx_full) work = tx_.enable_interrupts() || work;
    return work;
  }
  void disarm_interrupts() {
    rx_.disable_interrupts();
    tx_.disable_interrupts();
  }
  // No wake_deadline_ns(): the device interrupts on a configuration change
  // (the link among them), so its wait needs no timer.
  // snippet-end: ring-operations

  MmioDevice device_;
  std::uint64_t features_ = 0;
  bool legacy_ = false;
  std::uint32_t header_bytes_ = kHeaderBytes;
  QueueMemory rx_memory_;
  QueueMemory tx_memory_;
  QueueMemory ctrl_memory_;
  SplitQueue rx_;
  SplitQueue tx_;
  SplitQueue ctrl_;
  bool ctrl_usable_ = false;  // negotiated, set up, and not found unresponsive
  bool filtering_ = false;    // the device drops unjoined multicast for us
  // The stack's groups, kept to program again after a reset; more than
  // kMaxFilterGroups is recorded as too_many_groups_.
  std::array<hal::MacAddress, kMaxFilterGroups> groups_{};
  std::size_t group_count_ = 0;
  bool groups_set_ = false;
  bool too_many_groups_ = false;
  // Per TX id: 1 + the RX buffer it sends from (transmit_in_place), or 0.
  std::array<std::uint16_t, kQueueSize> tx_loan_{};
  bool rx_posted_ = false;    // posted since the last publish
  bool tx_checksum_ = false;  // enable_tx_checksum_offload() was called
  hal::MacAddress mac_;
  hal::LinkState link_ = hal::LinkState::kDown;
  hal::NicStats stats_;
  // A reset that failed: service_device() reads Status on every call until
  // one succeeds (otherwise only after a configuration-change interrupt).
  bool reset_owed_ = false;
  // Causes the trap acknowledged and service_device() has not handled yet.
  std::atomic<std::uint32_t> pending_causes_{0};
  bool attached_ = false;
};

static_assert(hal::Nic<Net>);
// Its capabilities, so that a change of signature cannot quietly drop one
// (the netif would fall back to copying and computing checksums).
static_assert(hal::NicSendsInPlace<Net> && hal::NicOffloadsTxChecksums<Net> &&
              hal::NicFiltersMulticast<Net>);

}  // namespace starling::virtio

#endif  // STARLING_DRIVERS_VIRTIO_NET_H_
