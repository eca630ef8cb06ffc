#include "drivers/dwmac/dwmac.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "drivers/dwmac/barrier.h"
#include "drivers/irq/irq.h"
#include "drivers/mmio/poll_deadline.h"
#include "drivers/nic/partial_checksum.h"
#include "kernel/async/as_task.h"
#include "kernel/async/timeout.h"
#include "kernel/console/console.h"
#include "kernel/console/report_limit.h"
#include "kernel/hal/clock.h"
#include "kernel/wire/frame.h"

namespace starling::dwmac {
namespace {

using namespace reg;

constexpr std::size_t kRingBytes = 4096;  // 256 descriptors of 16 bytes
static_assert(Dwmac::kRxRingSize * sizeof(Descriptor) == kRingBytes);
static_assert(Dwmac::kTxRingSize * sizeof(Descriptor) == kRingBytes);
constexpr std::size_t kRxBufferPages = Dwmac::kRxBuffers * Dwmac::kBufferBytes / mem::kPageSize;
constexpr std::size_t kTxBufferPages = Dwmac::kTxRingSize * Dwmac::kBufferBytes / mem::kPageSize;
// RBSZ must be a multiple of the 8-byte bus width (docs/hardware/dwmac.md §9 item 7) and hold a
// 1518-byte frame + VLAN tag + FCS.
static_assert(Dwmac::kBufferBytes % 8 == 0 && Dwmac::kBufferBytes >= 1522 + 4);
static_assert(hal::kMaxFrameBytes <= desc::kTxBuffer1LengthMask);

// Always on: the summaries and a fatal bus error. RIE/TIE come and go.
constexpr std::uint32_t kInterruptsAlways = dma_status::kNis | dma_status::kAis | dma_status::kFbe;

constexpr std::uint64_t kFourGiB = std::uint64_t{1} << 32;

// Trap context: the PLIC source stays claimed (irq::) until wait_for_work()
// unmasks it; Dwmac::interrupt() acknowledges the device.
void on_interrupt(void* driver) {
  static_cast<Dwmac*>(driver)->interrupt();
}

std::uint32_t low32(mem::PhysAddr address) {
  return static_cast<std::uint32_t>(address);
}

void print_hex_line(const char* text, std::uint32_t value) {
  console::print(text);
  console::print_hex(value);
  console::print("\n");
}

}  // namespace

Result<void> Dwmac::init(const Config& config, mem::PageAllocator& pages) {
  regs_ = mmio::Registers(config.base, config.model);
  irq_ = config.irq;
  params_ = config.params;
  phy_params_ = config.phy;
  mac_ = config.mac;
  mdio_ = Mdio(regs_, params_.mdio_clock_range);
  phy_ = Phy(&mdio_, phy_params_.address);

  // The version register survives and needs no reset: refuse an unknown core
  // before touching it.
  snps_version_ = regs_.read(kMacVersion) & kSnpsVerMask;
  if (snps_version_ != kSnpsVer510a && snps_version_ != kSnpsVer520) {
    print_hex_line("dwmac: unsupported core, MAC_VERSION.SNPSVER = ", snps_version_);
    console::print("dwmac: supported: 0x51 (EQoS 5.10a) and 0x52 (EQoS 5.20)\n");
    return Unexpected(Error::kUnsupported);
  }
  if (rx_ring_ == nullptr) {
    if (auto ok = allocate(pages); !ok.ok()) return ok;
  }
  core_ready_ = false;
  rings_ready_ = false;
  link_ = PhyLink{.up = false};

  // The PHY before the MAC's reset, as Linux orders it: SWR completes only
  // while the PHY's RX clock runs, and the PHY's own reset may stop it
  // (docs/hardware/star64-reference-drivers.md §5).
  if (auto ok = phy_.bring_up(phy_params_.settings); !ok.ok()) {
    if (ok.error() == Error::kTimedOut) {
      console::print((regs_.read(kMacMdioAddress) & mdio_address::kGb) != 0
                         ? "dwmac: MDIO timed out: MAC_MDIO_ADDRESS.GB never cleared\n"
                         : "dwmac: PHY soft reset (BMCR.15) never completed\n");
      return ok;
    }
    if (ok.error() == Error::kInvalidArgument) {
      console::print(
          "dwmac: PHY settings out of range (delays: 150 ps steps to 2250, or 1900 + steps "
          "to 4150 for RX; drive strengths: the YT8531's table)\n");
      return ok;
    }
    console::print("dwmac: no PHY answers at the configured MDIO address\n");
    return Unexpected(Error::kDeviceError);
  }
  if (phy_.drive_strength_refused()) {
    print_hex_line(
        "dwmac: PHY drive strength left as it was: not offered at this LDO voltage, 0xA001 "
        "5:4 = ",
        phy_.ldo_field());
  }
  if (auto ok = start_core(kResetTimeoutNs); !ok.ok()) {
    console::print(
        "dwmac: software reset (DMA_MODE.SWR) did not complete: the PHY's RX clock is not "
        "running (no cable?); port down, retrying every 0.5 s\n");
  } else {
    if (params_.debug) dump_dma_setup();
    run_self_test();
  }
  const std::uint64_t deadline = hal::now_ns() + config.link_wait_ns;
  for (;;) {
    auto link = poll_link();
    if (!link.ok()) {
      console::print("dwmac: MDIO timed out while polling the link\n");
      return Unexpected(link.error());
    }
    if (*link == hal::LinkState::kUp || hal::now_ns() >= deadline) break;
  }
  if (config.link_wait_ns != 0 && !link_.up) console::print("dwmac: no link yet\n");
  next_link_poll_ns_ = hal::now_ns() + kLinkPollNs;

  if (irq_ != 0 && !attached_) {
    if (auto ok = irq::attach(irq_, &on_interrupt, this); !ok.ok()) {
      return Unexpected(Error::kDeviceError);
    }
    attached_ = true;
  }
  return {};
}

Result<void> Dwmac::allocate(mem::PageAllocator& pages) {
  auto rings = pages.allocate(2);
  if (!rings.ok()) return Unexpected(rings.error());
  auto rx_buffers = pages.allocate(kRxBufferPages);
  if (!rx_buffers.ok()) return Unexpected(rx_buffers.error());
  auto tx_buffers = pages.allocate(kTxBufferPages);
  if (!tx_buffers.ok()) return Unexpected(tx_buffers.error());
  if (*rings + 2 * mem::kPageSize > kFourGiB ||
      *rx_buffers + kRxBufferPages * mem::kPageSize > kFourGiB ||
      *tx_buffers + kTxBufferPages * mem::kPageSize > kFourGiB) {
    console::print("dwmac: DMA memory above 4 GiB; descriptors carry 32-bit addresses\n");
    return Unexpected(Error::kNoMemory);
  }
  rx_ring_phys_ = *rings;
  tx_ring_phys_ = *rings + mem::kPageSize;
  rx_ring_ = reinterpret_cast<Descriptor*>(mem::to_pointer(rx_ring_phys_));
  tx_ring_ = reinterpret_cast<Descriptor*>(mem::to_pointer(tx_ring_phys_));
  rx_buffers_phys_ = *rx_buffers;
  tx_buffers_phys_ = *tx_buffers;
  for (std::uint16_t i = 0; i < kRxBuffers; ++i) {
    rx_state_[i] = BufferState::kFree;
    rx_free_[i] = static_cast<std::uint16_t>(kRxBuffers - 1 - i);  // 0 comes out first
  }
  rx_free_count_ = kRxBuffers;
  for (std::uint16_t i = 0; i < kTxRingSize; ++i) tx_slot_buffer_[i] = i;
  return {};
}

// docs/hardware/dwmac.md §6.1 step 2: SWR resets every MAC, MTL and DMA register; it self-clears.
Result<void> Dwmac::reset_core(std::uint64_t timeout_ns) {
  // A reset still pending from an earlier try is waited for, not written
  // again: while SWR is set the registers ignore writes.
  if ((regs_.read(kDmaMode) & dma_mode::kSwr) == 0) regs_.write(kDmaMode, dma_mode::kSwr);
  mmio::PollDeadline deadline(timeout_ns);
  for (;;) {
    if ((regs_.read(kDmaMode) & dma_mode::kSwr) == 0) return {};
    if (deadline.passed()) {
      ++driver_stats_.reset_timeouts;
      return Unexpected(Error::kTimedOut);
    }
  }
}

Result<void> Dwmac::start_core(std::uint64_t timeout_ns) {
  core_ready_ = false;
  if (auto ok = reset_core(timeout_ns); !ok.ok()) return ok;
  read_features();
  if (!rings_ready_) lay_out_fresh_rings();
  configure();
  rings_ready_ = false;  // the next start lays them out afresh, unless recover() keeps them
  core_ready_ = true;
  return {};
}

void Dwmac::read_features() {
  hw_feature0_ = regs_.read(kMacHwFeature0);
  hw_feature1_ = regs_.read(kMacHwFeature1);
  // TX insertion needs store-and-forward (enable_tx_checksum_offload() says
  // why); RX checking works in either mode: its result is in the last
  // descriptor's write-back, after the whole frame has passed.
  tx_checksum_ = params_.checksum_offload && params_.dma_mode == DmaMode::kStoreAndForward &&
                 (hw_feature0_ & hw_feature0::kTxCoe) != 0;
  rx_checksum_ = params_.checksum_offload && (hw_feature0_ & hw_feature0::kRxCoe) != 0;
}

// A ring with nothing in flight: TX empty, RX posted from slot 0. On a
// second init() the buffers still armed go back to the pool (held ones stay
// with the stack) and unsent TX frames are dropped (counted).
void Dwmac::lay_out_fresh_rings() {
  for (std::uint32_t i = rx_next_; i != rx_fill_; ++i) {
    free_rx_buffer(rx_slot_buffer_[i % kRxRingSize]);
  }
  (void)collect_tx();
  stats_.tx_drops += tx_in_flight();
  // Dropped frames sent from RX buffers end those loans (released ones
  // join the pool the fresh ring is armed from).
  for (std::uint16_t& loan : tx_slot_loan_) {
    if (loan != 0) (void)end_loan(std::exchange(loan, 0) - 1u);
  }
  std::memset(static_cast<void*>(tx_ring_), 0, kRingBytes);
  std::memset(static_cast<void*>(rx_ring_), 0, kRingBytes);
  tx_head_ = tx_clean_ = 0;
  rx_next_ = rx_fill_ = 0;
  rx_discarding_ = false;
}

// docs/hardware/dwmac.md §6.1 steps 4-11, after SWR, with the rings laid out in memory.
void Dwmac::configure() {
  // Step 4: bus and DMA mode. DCHE exists from 5.20 on.
  regs_.write(kDmaSysbusMode, sysbus_mode(params_));
  const bool prefetch = params_.descriptor_prefetch && snps_version_ >= kSnpsVer520;
  regs_.write(kDmaMode, prefetch ? dma_mode::kDche : 0);

  // Step 5: bursts, descriptor skip 0 (descriptors 16 bytes apart), buffer size.
  regs_.write(kDmaCh0Control, params_.pbl_x8 ? ch_control::kPblx8 : 0);
  regs_.write(kDmaCh0TxControl, ch_tx_control::txpbl(params_.tx_pbl) | ch_tx_control::kOsf);
  regs_.write(kDmaCh0RxControl,
              ch_rx_control::rxpbl(params_.rx_pbl) | ch_rx_control::rbsz(kBufferBytes));

  // Step 6: rings. RX slots are armed first so the tail written below
  // covers them; the addresses are below 4 GiB (allocate()).
  refill_rx();  // also writes the tail, harmless while SR is off; written again below
  regs_.write(kDmaCh0TxDescListHigh, 0);
  regs_.write(kDmaCh0TxDescListAddress, low32(tx_ring_phys_));
  regs_.write(kDmaCh0RxDescListHigh, 0);
  regs_.write(kDmaCh0RxDescListAddress, low32(rx_ring_phys_));
  regs_.write(kDmaCh0TxDescRingLength, kTxRingSize - 1);
  regs_.write(kDmaCh0RxDescRingLength, kRxRingSize - 1);

  // Step 7: MAC address, HIGH then LOW.
  const auto& a = mac_.bytes;
  regs_.write(kMacAddress0High, kAddressEnable | std::uint32_t{a[5]} << 8 | a[4]);
  regs_.write(kMacAddress0Low, std::uint32_t{a[3]} << 24 | std::uint32_t{a[2]} << 16 |
                                   std::uint32_t{a[1]} << 8 | a[0]);

  // Step 8: MTL. Store-and-forward both ways (TSF, RSF; TX checksum
  // insertion needs TSF), or threshold mode with the board's TTC and RTC
  // (docs/hardware/dwmac.md §10); queue sizes are the whole FIFOs HW_FEATURE1
  // reports; FEP forwards error frames so the driver counts them (in
  // threshold mode the MTL could not drop those longer than RTC anyway). No
  // flow-control thresholds: the JH7110's 2 KiB RX FIFO is below the 4 KiB
  // they need.
  const bool store_and_forward = params_.dma_mode == DmaMode::kStoreAndForward;
  const std::uint32_t tqs = hw_feature1::tx_fifo_bytes(hw_feature1_) / 256 - 1;
  const std::uint32_t rqs = hw_feature1::rx_fifo_bytes(hw_feature1_) / 256 - 1;
  regs_.write(kMtlTxq0OperationMode,
              (store_and_forward ? mtl_txq::kTsf : mtl_txq::ttc(params_.tx_threshold)) |
                  mtl_txq::kTxqEnabled | (tqs & 0x1FF) << mtl_txq::kTqsShift);
  regs_.write(kMtlRxq0OperationMode,
              (store_and_forward ? mtl_rxq::kRsf : mtl_rxq::rtc(params_.rx_threshold)) |
                  mtl_rxq::kFep | (rqs & 0x3FF) << mtl_rxq::kRqsShift);
  regs_.write(kMtlRxqDmaMap0, 0);  // queue 0 -> DMA channel 0

  // Step 9: MAC. Queue 0 on; perfect filter on address 0 plus broadcast and
  // all multicast (IPv6 neighbour discovery, mDNS); no flow control.
  regs_.write(kMacRxqCtrl0, kRxq0EnableGeneric);
  regs_.write(kMacPacketFilter, packet_filter::kPm);
  regs_.write(kMacQ0TxFlowCtrl, 0);
  regs_.write(kMacRxFlowCtrl, 0);
  regs_.write(kMacInterruptEnable, 0);  // DMA interrupts only
  // The statistics counters' interrupts: enabled at reset, not gated by
  // MAC_INTERRUPT_ENABLE, and one latched when a counter passes half scale
  // (after about 2 GiB each way) holds the line high until that counter is
  // read, which this driver never does: every wait would return at once,
  // for ever. Masked, as Linux's stmmac does (docs/hardware/dwmac.md §2.4).
  regs_.write(kMmcRxInterruptMask, kMmcMaskAll);
  regs_.write(kMmcTxInterruptMask, kMmcMaskAll);
  regs_.write(kMmcIpcRxInterruptMask, kMmcMaskAll);
  program_speed();

  // Step 10: interrupts; stale status cleared.
  set_interrupts(kInterruptsAlways);
  regs_.write(kDmaCh0Status, dma_status::kAllFlags);

  // Step 11: DMA first, then the MAC; tails last (they start the DMA). The
  // armed descriptors are in memory before the tail writes (write_*_tail).
  // The MAC's transmitter and receiver come on only with a link whose
  // speed has been programmed (poll_link()); after a recovery the link is
  // already known.
  regs_.update(kDmaCh0TxControl, 0, ch_tx_control::kSt);
  regs_.update(kDmaCh0RxControl, 0, ch_rx_control::kSr);
  if (link_.up) start_mac();
  barrier::before_mmio_write();
  regs_.write(kDmaCh0RxDescTailPointer,
              low32(rx_ring_phys_ + (rx_fill_ % kRxRingSize) * sizeof(Descriptor)));
  write_tx_tail();
}

// docs/hardware/dwmac.md §6.2: 1000 = PS 0 FES 0; 100 = PS 1 FES 1; 10 = PS 1 FES 0; DM = full
// duplex. Before any link is known the MAC is set to 1000/full. ACS|CST strip the
// FCS of every frame (PL then excludes it); IPC when the core has RX COE.
// Written only with TE and RE clear (after SWR, or after stop_mac()): the
// engines are not running while their clock and framing change.
void Dwmac::program_speed() {
  std::uint32_t value = mac_config::kAcs | mac_config::kCst;
  if (rx_checksum_) value |= mac_config::kIpc;
  if (link_.up) {
    if (link_.speed == LinkSpeed::k100) value |= mac_config::kPs | mac_config::kFes;
    if (link_.speed == LinkSpeed::k10) value |= mac_config::kPs;
    if (link_.full_duplex) value |= mac_config::kDm;
  } else {
    value |= mac_config::kDm;
  }
  regs_.write(kMacConfiguration, value);
}

void Dwmac::stop_mac() {
  const std::uint32_t config = regs_.read(kMacConfiguration);
  if ((config & (mac_config::kTe | mac_config::kRe)) == 0) return;
  regs_.write(kMacConfiguration, config & ~(mac_config::kTe | mac_config::kRe));
  mmio::PollDeadline deadline(kMacIdleTimeoutNs);
  while ((regs_.read(kMacDebug) & (mac_debug::kRpests | mac_debug::kTpests)) != 0) {
    if (deadline.passed()) {
      ++driver_stats_.mac_stop_timeouts;
      return;
    }
  }
}

void Dwmac::start_mac() {
  regs_.update(kMacConfiguration, 0, mac_config::kTe | mac_config::kRe);
}

void Dwmac::set_interrupts(std::uint32_t enable) {
  regs_.write(kDmaCh0InterruptEnable, enable);
}

Result<hal::LinkState> Dwmac::poll_link() {
  // In reset, MDIO (a MAC register) is in reset too: the PHY cannot be
  // asked until the reset completes, which it does once the PHY's RX clock
  // runs (the PHY, set up before, autonegotiates on its own).
  if (!core_ready_) {
    if (!start_core(kResetRetryNs).ok()) return hal::LinkState::kDown;
    console::print("dwmac: software reset completed; port running\n");
    ++stats_.config_changes;
    if (params_.debug) dump_dma_setup();
    run_self_test();
  }
  auto now = phy_.poll();
  if (!now.ok()) return Unexpected(now.error());
  if (!(*now == link_)) {
    const bool was_up = link_.up;
    link_ = *now;
    if (link_.up || was_up) {
      ++driver_stats_.link_changes;
      ++stats_.config_changes;
      if (!link_.up) {
        console::print("dwmac: link down\n");
      } else {
        console::print(link_.speed == LinkSpeed::k1000  ? "dwmac: link up, 1000 Mb/s"
                       : link_.speed == LinkSpeed::k100 ? "dwmac: link up, 100 Mb/s"
                                                        : "dwmac: link up, 10 Mb/s");
        console::print(link_.full_duplex ? ", full duplex\n" : ", half duplex\n");
      }
    }
    // Linux's order (phylink: mac_link_down, then mac_link_up): both
    // engines off before anything about the link changes; the speed and
    // duplex written with them off; on again only with a link. Down, the
    // MAC keeps the speed it had: its TX clock (on the Star64 the PHY's
    // RX clock) may still run at the old rate.
    if (core_ready_) stop_mac();
    if (auto ok = phy_.apply_link(link_); !ok.ok()) return Unexpected(ok.error());
    if (core_ready_ && link_.up) {
      program_speed();
      start_mac();
    }
  }
  return link();
}

// ---- RX ----

bool Dwmac::rx_ready() const {
  if (rx_next_ == rx_fill_) return false;
  return (rx_ring_[rx_next_ % kRxRingSize].load(3) & desc::kOwn) == 0;
}

void Dwmac::free_rx_buffer(std::uint16_t buffer) {
  rx_state_[buffer] = BufferState::kFree;
  rx_free_[rx_free_count_++] = buffer;
}

// Arms free buffers into empty slots, leaving one slot empty (exclusive
// tail: a full ring would look empty), then one tail write for the batch.
void Dwmac::refill_rx() {
  const std::uint32_t start = rx_fill_;
  while (rx_fill_ - rx_next_ < kRxRingSize - 1u && rx_free_count_ != 0) {
    const std::uint16_t buffer = rx_free_[--rx_free_count_];
    const std::uint32_t slot = rx_fill_ % kRxRingSize;
    Descriptor& d = rx_ring_[slot];
    // Write-back destroyed the address: rewrite all of RDES0-2.
    d.store(0, low32(rx_buffer_phys(buffer)));
    d.store(1, 0);
    d.store(2, 0);
    // RDES0-2 before OWN.
    barrier::before_own();
    d.store(3, desc::kOwn | desc::kRxIoc | desc::kRxBuffer1Valid);
    rx_slot_buffer_[slot] = buffer;
    rx_state_[buffer] = BufferState::kPosted;
    ++rx_fill_;
  }
  if (rx_fill_ == start) return;
  // The OWN stores before the tail store that lets the DMA fetch them.
  barrier::before_mmio_write();
  regs_.write(kDmaCh0RxDescTailPointer,
              low32(rx_ring_phys_ + (rx_fill_ % kRxRingSize) * sizeof(Descriptor)));
}

std::size_t Dwmac::receive(std::span<hal::RxFrame> out) {
  std::size_t count = 0;
  bool requeued = false;
  while (count < out.size() && rx_next_ != rx_fill_) {
    const std::uint32_t slot = rx_next_ % kRxRingSize;
    const Descriptor& d = rx_ring_[slot];
    const std::uint32_t des3 = d.load(3);
    if ((des3 & desc::kOwn) != 0) break;
    // OWN clear before the written-back words and the buffer.
    barrier::after_own();
    ++rx_next_;
    const std::uint16_t buffer = rx_slot_buffer_[slot];

    // Not the whole frame in this one buffer: drop up to and including LD.
    const bool first = (des3 & desc::kFirst) != 0, last = (des3 & desc::kLast) != 0;
    if ((des3 & desc::kContext) != 0 || rx_discarding_ || !first || !last) {
      free_rx_buffer(buffer);
      requeued = true;
      if ((des3 & desc::kContext) != 0) continue;  // no timestamps asked for
      if (!last) {
        rx_discarding_ = true;
        continue;
      }
      rx_discarding_ = false;
      ++driver_stats_.rx_spanning_frames;
      ++stats_.rx_drops;
      continue;
    }
    if ((des3 & desc::kRxErrorSummary) != 0) {
      ++driver_stats_.rx_error_frames;
      if ((des3 & desc::kRxCrcError) != 0) ++driver_stats_.rx_crc_errors;
      ++stats_.rx_drops;
      free_rx_buffer(buffer);
      requeued = true;
      continue;
    }
    const std::uint32_t length = des3 & desc::kRxPacketLengthMask;
    if (length > kBufferBytes) {  // the DMA cannot have written that much: never trusted
      ++stats_.rx_errors;
      free_rx_buffer(buffer);
      requeued = true;
      continue;
    }
    if (length < 14) {  // no room for an Ethernet header
      ++stats_.rx_drops;
      free_rx_buffer(buffer);
      requeued = true;
      continue;
    }
    bool verified = false;
    if ((des3 & desc::kRxRdes1Valid) != 0) {
      const std::uint32_t rdes1 = d.load(1);
      if ((rdes1 & (desc::kRxIpHeaderError | desc::kRxPayloadChecksumError)) != 0) {
        ++driver_stats_.rx_checksum_errors;  // delivered: lwIP checks and drops it
      }
      // The engine checked an IPv4 TCP/UDP checksum and found it right: the
      // stack may skip its own (the netif still checks IP fragments).
      const std::uint32_t type = rdes1 & desc::kRxPayloadTypeMask;
      verified = rx_checksum_ && (rdes1 & desc::kRxIpv4) != 0 &&
                 (type == desc::kRxPayloadUdp || type == desc::kRxPayloadTcp) &&
                 (rdes1 & (desc::kRxIpHeaderError | desc::kRxPayloadChecksumError |
                           desc::kRxChecksumBypassed)) == 0;
    }
    rx_state_[buffer] = BufferState::kHeld;
    out[count++] = hal::RxFrame{.data = std::span(mem::to_pointer(rx_buffer_phys(buffer)), length),
                                .handle = buffer,
                                .checksum_verified = verified};
    ++stats_.rx_frames;
    stats_.rx_bytes += length;
  }
  if (requeued) refill_rx();
  return count;
}

// ---- TX ----

void Dwmac::reclaim_tx() {
  if (collect_tx()) refill_rx();
}

bool Dwmac::collect_tx() {
  bool freed = false;
  while (tx_clean_ != tx_head_) {
    const std::uint32_t des3 = tx_ring_[tx_clean_ % kTxRingSize].load(3);
    if ((des3 & desc::kOwn) != 0) break;
    // OWN clear before the write-back status.
    barrier::after_own();
    if ((des3 & desc::kLast) != 0 && (des3 & desc::kTxErrorSummary) != 0) {
      ++driver_stats_.tx_error_frames;
    }
    ++driver_stats_.tx_completions;
    if (const std::uint16_t loan = std::exchange(tx_slot_loan_[tx_clean_ % kTxRingSize], 0);
        loan != 0) {
      freed = end_loan(loan - 1u) || freed;
    }
    ++tx_clean_;
  }
  return freed;
}

void Dwmac::fill_tx(std::span<const hal::TxFragment> fragments, std::uint32_t bytes) {
  const mem::PhysAddr buffer =
      tx_buffers_phys_ + std::uint64_t{tx_slot_buffer_[tx_head_ % kTxRingSize]} * kBufferBytes;
  nic::copy_fragments(mem::to_pointer(buffer), fragments);
  post_tx(buffer, bytes);
}

namespace {

// The hash filter's bin for a group address (docs/hardware/dwmac.md §2.1):
// bitrev32(CRC-32 of the 6 bytes) >> 26, CRC-32 being IEEE 802.3's
// (reflected 0xEDB88320, initial and final inversion).
unsigned multicast_hash_bin(const hal::MacAddress& mac) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint8_t byte : mac.bytes) {
    crc ^= byte;
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ ((crc & 1u) != 0 ? 0xEDB88320u : 0u);
  }
  crc = ~crc;
  std::uint32_t reversed = 0;
  for (int b = 0; b < 32; ++b) reversed |= ((crc >> b) & 1u) << (31 - b);
  return reversed >> 26;
}

}  // namespace

void Dwmac::set_multicast_groups(std::span<const hal::MacAddress> groups) {
  std::uint32_t table[2] = {0, 0};
  for (const hal::MacAddress& mac : groups) {
    const unsigned bin = multicast_hash_bin(mac);
    table[bin / 32] |= 1u << (bin % 32);
  }
  regs_.write(kMacHashTableReg0, table[0]);
  regs_.write(kMacHashTableReg1, table[1]);
  regs_.write(kMacPacketFilter, packet_filter::kHmc);
  ++stats_.rx_filter_updates;
}

// CIC for one frame: everything (11), except for an IPv4 fragment, whose
// header alone gets a checksum (01): its UDP checksum, if any, lwIP
// computed over the whole datagram before fragmenting it, or left 0 ("no
// checksum", which IPv4 allows) while the offload is on. Linux never asks
// the engine for a fragment's payload either (its fragments are always
// summed in software). Found by //test/robustness:fairness_host_test: a
// 3,000-byte UDP datagram's echo never reached its sender.
// An IPv6 fragment gets nothing (00): IPv6 has no header checksum, and
// net/udp had lwIP sum a fragmented IPv6 datagram itself.
std::uint32_t Dwmac::tx_checksum_bits(mem::PhysAddr buffer, std::uint32_t bytes) const {
  if (!tx_checksum_) return 0;
  const std::span frame(mem::to_pointer(buffer), bytes);
  if (nic::is_ipv6_fragment(frame)) return 0;
  return wire::is_ipv4_fragment(frame) ? desc::kTxChecksumIpHeader : desc::kTxChecksumFull;
}

bool Dwmac::can_send_in_place(hal::RxHandle handle, std::span<const std::byte> frame) const {
  if (handle >= kRxBuffers) return false;
  const std::byte* buffer = mem::to_pointer(rx_buffer_phys(static_cast<std::uint16_t>(handle)));
  return hal::frame_inside_buffer(std::span(buffer, kBufferBytes), frame);
}

void Dwmac::fill_tx_in_place(hal::RxHandle handle, std::span<std::byte> frame) {
  const auto buffer = static_cast<std::uint16_t>(handle);
  const std::uint64_t offset = static_cast<std::uint64_t>(
      frame.data() - mem::to_pointer(rx_buffer_phys(buffer)));  // can_send_in_place()
  tx_slot_loan_[tx_head_ % kTxRingSize] = static_cast<std::uint16_t>(buffer + 1u);
  post_tx(rx_buffer_phys(buffer) + offset, static_cast<std::uint32_t>(frame.size()));
}

void Dwmac::post_tx(mem::PhysAddr buffer, std::uint32_t bytes) {
  Descriptor& d = tx_ring_[tx_head_ % kTxRingSize];
  d.store(0, low32(buffer));
  d.store(1, 0);
  d.store(2, desc::kTxIoc | bytes);
  const std::uint32_t checksum = tx_checksum_bits(buffer, bytes);
  // The frame bytes and TDES0-2 before OWN.
  barrier::before_own();
  d.store(3, desc::kOwn | desc::kFirst | desc::kLast | checksum | bytes);
  ++tx_head_;
  ++stats_.tx_frames;
  stats_.tx_bytes += bytes;
}

void Dwmac::write_tx_tail() {
  // The OWN stores before the tail store that starts the DMA on them.
  barrier::before_mmio_write();
  regs_.write(kDmaCh0TxDescTailPointer,
              low32(tx_ring_phys_ + (tx_head_ % kTxRingSize) * sizeof(Descriptor)));
}

// ---- interrupts, link, recovery ----

void Dwmac::interrupt() {
  if (core_ready_) {
    const std::uint32_t flags = acknowledge_status();
    if (flags != 0) pending_status_.fetch_or(flags, std::memory_order_release);
  }
  interrupt_.signal();
}

std::uint32_t Dwmac::acknowledge_status() {
  const std::uint32_t flags = regs_.read(kDmaCh0Status) & dma_status::kAllFlags;
  if (flags != 0) {
    regs_.write(kDmaCh0Status, flags);  // write 1 to clear: lowers the line
    // DMA_CH0_STATUS before the descriptor loads it prompts.
    barrier::after_mmio_read();
  }
  return flags;
}

void Dwmac::collect_missed_frames() {
  // Frames the MTL dropped while the RX DMA had no descriptors: MFC 10:0,
  // MFCO 15 = it overflowed. Clear-on-read (the databook's behaviour per the
  // model; docs/hardware/dwmac.md §4.1 marks it unconfirmed).
  const std::uint32_t missed = regs_.read(kDmaCh0MissFrameCount);
  if (missed != 0) {
    const std::uint32_t count = (missed & 0x8000) != 0 ? 0x800 : missed & 0x7FF;
    driver_stats_.rx_missed_frames += count;
    stats_.rx_drops += count;
  }
}

Result<bool> Dwmac::service() {
  // With an interrupt line the trap read and cleared DMA_CH0_STATUS
  // (interrupt()): the task reads no register on a frame's wake-up, where
  // DMA_CH0_STATUS and the missed-frame counter before each sleep and after
  // each wake-up were four uncached reads per packet (docs/benchmarks.md,
  // issue 49). Without one the device is polled as well (an owner of the
  // line, as the host board, may still call interrupt()).
  std::uint32_t status = pending_status_.exchange(0, std::memory_order_acquire);
  if (irq_ == 0) status |= acknowledge_status();
  // The MTL drops frames only while RX has no descriptors (RBU), so the
  // counter is read then, at every link poll, and on every polled pass.
  if (irq_ == 0 || (status & dma_status::kRbu) != 0) collect_missed_frames();
  if (status == 0) return false;
  if ((status & dma_status::kRbu) != 0) ++driver_stats_.rx_buffer_unavailable;
  if ((status & dma_status::kTbu) != 0) ++driver_stats_.tx_buffer_unavailable;
  if ((status & dma_status::kFbe) != 0) {
    ++driver_stats_.fatal_bus_errors;
    // A device that keeps failing must not turn the console into the
    // bottleneck (all are counted).
    if (console::worth_reporting(driver_stats_.fatal_bus_errors)) {
      print_hex_line("dwmac: fatal bus error, resetting; DMA_CH0_STATUS = ", status);
    }
    if (auto ok = recover(); !ok.ok()) return Unexpected(ok.error());
    return true;
  }
  return false;
}

Result<void> Dwmac::recover() {
  (void)collect_tx();  // completed frames are done; the rest go again (freed buffers: configure())
  // RX: frames written back before the error (OWN clear, in order from
  // rx_next_) are kept for receive(); buffers still armed go back to the
  // pool. Held buffers stay with the stack.
  std::uint32_t completed = 0;
  while (rx_next_ + completed != rx_fill_ &&
         (rx_ring_[(rx_next_ + completed) % kRxRingSize].load(3) & desc::kOwn) == 0) {
    ++completed;
  }
  barrier::after_own();
  for (std::uint32_t i = rx_next_ + completed; i != rx_fill_; ++i) {
    free_rx_buffer(rx_slot_buffer_[i % kRxRingSize]);
  }
  core_ready_ = false;
  const bool reset = reset_core(kResetTimeoutNs).ok();
  // The DMA is stopped (SWR is set, done or not): plain copies of the rings
  // are safe, and a reset restarts both DMA channels at their list address
  // (slot 0).
  // TX frames still owned by the DMA move, in order, to slots 0..k-1 with
  // their buffers, and go out again.
  const std::uint32_t pending = tx_in_flight();
  const std::uint32_t tx_first = tx_clean_ % kTxRingSize;
  std::rotate(tx_ring_, tx_ring_ + tx_first, tx_ring_ + kTxRingSize);
  std::rotate(tx_slot_buffer_.begin(), tx_slot_buffer_.begin() + tx_first, tx_slot_buffer_.end());
  std::rotate(tx_slot_loan_.begin(), tx_slot_loan_.begin() + tx_first, tx_slot_loan_.end());
  std::memset(static_cast<void*>(tx_ring_ + pending), 0,
              (kTxRingSize - pending) * sizeof(Descriptor));
  tx_clean_ = 0;
  tx_head_ = pending;
  // The kept RX descriptors move to the last slots (N-c .. N-1): receive()
  // reads them first, while the DMA fills fresh slots from 0 on.
  const std::uint32_t rx_first = (rx_next_ + completed) % kRxRingSize;
  std::rotate(rx_ring_, rx_ring_ + rx_first, rx_ring_ + kRxRingSize);
  std::rotate(rx_slot_buffer_.begin(), rx_slot_buffer_.begin() + rx_first, rx_slot_buffer_.end());
  std::memset(static_cast<void*>(rx_ring_), 0, (kRxRingSize - completed) * sizeof(Descriptor));
  rx_next_ = kRxRingSize - completed;
  rx_fill_ = kRxRingSize;
  ++driver_stats_.recoveries;
  ++stats_.resets;
  if (!reset) {
    // Kept as they are for the reset poll_link() retries.
    rings_ready_ = true;
    console::print("dwmac: software reset after the bus error did not complete; retrying\n");
    return {};
  }
  configure();  // arms slots 0.. from the pool
  core_ready_ = true;
  return {};
}

Result<bool> Dwmac::service_device() {
  bool work = false;
  if (core_ready_) {
    auto serviced = service();
    if (!serviced.ok()) return Unexpected(serviced.error());
    work = *serviced;
  }
  if (hal::now_ns() >= next_link_poll_ns_) {
    next_link_poll_ns_ = hal::now_ns() + kLinkPollNs;
    const auto before = link_;
    const bool was_ready = core_ready_;
    if (core_ready_) {
      check_tx_progress();
      collect_missed_frames();
    }
    auto polled = poll_link();
    if (!polled.ok()) return Unexpected(polled.error());
    work = work || !(before == link_) || core_ready_ != was_ready;
  }
  return work;
}

bool Dwmac::arm_interrupts(bool tx_full) {
  // RI and TI latch while their interrupts are off (the frames just
  // drained set them): left set, enabling would raise the line at once, a
  // spurious interrupt per wake-up. Cleared first, by a write (1 clears;
  // no read); the look after the enable finds what they stood for.
  regs_.write(kDmaCh0Status, dma_status::kRi | dma_status::kTi | dma_status::kNis);
  // A frame that completed before the enable is seen by the look after it;
  // one after it interrupts.
  set_interrupts(kInterruptsAlways | dma_status::kRi | (tx_full ? dma_status::kTi : 0));
  barrier::mmio_write_then_load();
  reclaim_tx();
  return rx_ready() || (tx_full && tx_in_flight() < kTxRingSize - 1u);
}

// The stack drains with RX (and TX) interrupts off.
void Dwmac::disarm_interrupts() {
  set_interrupts(kInterruptsAlways);
}

}  // namespace starling::dwmac
