#ifndef STARLING_DRIVERS_DWMAC_MODEL_DWMAC_MODEL_H_
#define STARLING_DRIVERS_DWMAC_MODEL_DWMAC_MODEL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/phy_model.h"
#include "drivers/mmio/register_bus.h"

// A register-level model of the Synopsys DWC Ethernet QoS 5.10a/5.20 MAC
// ("dwmac4/5") with one TX and one RX DMA channel and queue, as on the
// StarFive JH7110, plus its MDIO-attached PHY. It follows
// docs/hardware/dwmac.md §2-§6: register offsets and bit positions,
// write-1-to-clear status, the self-clearing soft reset, descriptor formats
// and the ring/tail-pointer rules. Its register constants are its own, written
// from docs/hardware/dwmac.md; the driver keeps separate ones, so that an offset
// wrong in either shows up as a test failure.
//
// The DMA is synchronous: it runs inside the register write (ST/SR, tail
// pointer, TE) or wire event (receive_from_wire, set_tx_stall) that lets it
// make progress, until it has nothing to do, suspends or stops. Descriptors and
// buffers must lie in the DmaRegion (bus address == host address); any other
// address is a fatal bus error, as an unmapped AXI access would be.
//
// Choices where docs/hardware/dwmac.md is silent or says "unconfirmed":
// - MAC_VERSION default 0x4152: docs/hardware/dwmac.md §2.2's layout (SNPSVER 7:0) and LOG, not
// docs/hardware/dwmac.md §2.2's
//   "expect 0x00005241", which swaps the bytes.
// - MAC_ADDRESS0 resets to all ones with AE (databook); SWR wipes it.
// - MISS_FRAME_CNT is clear-on-read (MFC saturates at 2047, then MFCO).
// - RXQ0EN must be exactly 2 (DCB/generic) to receive; 1 (AV) counts as off.
// - Reaching the TX tail sets TBU (R); an RX frame meeting the tail or an
//   OWN=0 descriptor sets RBU and suspends; only a tail write resumes (a new
//   frame does not re-fetch).
// - An RX frame is written whole or not at all (descriptors are checked
//   first); non-LD descriptors carry the bytes transferred so far in PL
//   (Zephyr's reading of the databook), LD the whole length.
// - TX checksum insertion needs MTL TSF; CIC 10 keeps the pseudo-header sum
//   the driver left in the field, CIC 11 computes it. IPv4 only on TX; RX
//   checks IPv4 header + TCP/UDP/ICMP and IPv6 TCP/UDP.
// - Threshold mode (MTL TXQ0 TSF clear, RXQ0 RSF clear; docs/hardware/dwmac.md
//   §10.3): a frame with CIC set leaves with no checksum inserted, exactly as
//   the driver gave it (counted in tx_checksums_bypassed), never refused;
//   with FEP clear an error frame longer than RTC bytes is forwarded anyway
//   (the databook's FEP rule; counted in rx_error_frames_cut_through). RX
//   checksum checking works in both modes. TTC and RTC are stored and
//   decoded; since the DMA is synchronous they change no timing, and TX
//   underflow (a threshold-mode risk) is not modelled.
// - TX errors happen only when injected (inject_tx_error).
// - A write to MAC_CONFIGURATION that changes PS, FES or DM while TE or RE
//   is set is counted and damages the next frame each way (the driver must
//   turn both engines off first, as Linux and U-Boot do; §6.2).
// - LM (MAC loopback) sends every transmitted frame back into the receive
//   engine (address filter, checksum checking and DMA as for the wire), not
//   to the PHY, and only while the PHY's RX clock runs.
// - MAC_DEBUG reads idle; DMA_DEBUG_STATUS0 reports the channels' states
//   (stopped, suspended, or running).
// - SWR completes only while the PHY's RX clock runs
//   (PhyModel::rx_clock_running: Linux's stmmac requires clk_rx_i for it;
//   docs/hardware/dwmac.md §8.3): DMA_MODE reads count down only then.
// - Frames cross the MAC-PHY link as the PHY's RGMII settings allow
//   (PhyModel::Options::timing): a TX frame damaged there never reaches the
//   sink (the partner drops its bad FCS; our MAC and its counters cannot
//   know); an RX frame damaged there arrives with a CRC error.
// - Not modelled: the RX watchdog (RI without IOC), ETI/ERI/CDE sources,
//   hash/perfect filters beyond MAC_ADDRESS0, the TX FIFO limit (frames held
//   while TE is clear are unbounded), pad stripping (ACS), MAC/MTL interrupts
//   (MAC_INTERRUPT_STATUS reads 0), EAME/40-bit addresses, timestamps.
namespace starling::model {

class DwmacModel final : public mmio::RegisterBus {
 public:
  struct Options {
    // MAC_VERSION: SNPSVER 0x52 in 7:0 (JH7110 reports 5.20), USERVER 0x41 in
    // 15:8 (docs/hardware/dwmac.md §2.2 layout; LOG "User ID: 0x41, Synopsys ID: 0x52", and
    // Linux prints User ID from 15:8). docs/hardware/dwmac.md §2.2's "expect 0x00005241" swaps the
    // bytes.
    std::uint32_t version = 0x0000'4152;
    std::uint32_t fifo_size_field = 4;  // HW_FEATURE1 RX/TXFIFOSIZE: 128 << 4 = 2 KiB each (JH7110)
    unsigned reset_reads =
        3;  // DMA_MODE reads that still show SWR=1 after a reset; 0 = never clears (stuck)
    unsigned mdio_busy_reads =
        2;                    // MDIO_ADDRESS reads that still show GB=1; 0 = never clears (stuck)
    PhyModel::Options phy{};  // an initializer, so designated initializers may omit it
  };
  DwmacModel(DmaRegion& dma, Options options);
  explicit DwmacModel(DmaRegion& dma);  // default Options

  // mmio::RegisterBus. Offsets per docs/hardware/dwmac.md §2-§4. Unknown offsets read 0,
  // writes are ignored, both counted.
  std::uint32_t read32(std::uint32_t offset) override;
  void write32(std::uint32_t offset, std::uint32_t value) override;

  // The wire, receive side: one frame arriving (destination MAC first, no
  // FCS). The model appends a 4-byte FCS (real CRC-32) unless
  // MAC_CONFIGURATION ACS/CST strip it, so PL counts it as hardware does.
  struct RxFault {
    bool crc_error = false;
    bool receive_error = false;
    bool giant = false;
    bool overflow = false;
  };
  enum class RxOutcome {
    kDelivered,        // written to descriptors (RI if IOC)
    kQueued,           // held in the MTL RX FIFO: RX DMA suspended for want of descriptors (RBU)
    kDroppedOff,       // MAC RE clear, RXQ0 not enabled (RXQ_CTRL0), or in reset
    kDroppedFifoFull,  // FIFO full while suspended: counted in DMA_CH0_MISS_FRAME_CNT
    kDroppedFiltered,  // destination not our MAC_ADDRESS0, not broadcast, not (PM) multicast, PR
                       // clear
    kDroppedError,     // error frame and MTL_RXQ0_OPERATION_MODE.FEP clear
  };
  // (An overload, not a default argument: clang cannot use RxFault's member
  // initializers inside DwmacModel's own definition.)
  RxOutcome receive_from_wire(std::span<const std::byte> frame, RxFault fault);
  RxOutcome receive_from_wire(std::span<const std::byte> frame) {
    return receive_from_wire(frame, RxFault{});
  }

  // The wire, transmit side: each frame the TX DMA completes (no FCS), in
  // order. With CIC set in TDES3 the model has inserted the checksums (IPv4
  // header; TCP/UDP/ICMP with pseudo-header) before calling.
  void on_transmit(std::function<void(std::span<const std::byte>)> sink);

  // The interrupt line (JH7110 macirq): level. The callback runs on every
  // change of level.
  bool interrupt_line() const { return line_; }
  void on_interrupt_line(std::function<void(bool level)> callback);

  // Fault injection.
  enum class Channel { kTx, kRx };
  // The next descriptor access on `channel` fails: FBE + TEB/REB, that DMA
  // stops (TPS/RPS); only SWR recovers.
  void inject_fatal_bus_error(Channel channel);
  // TX DMA fetches nothing while stalled (a stuck transmitter); resuming
  // continues.
  void set_tx_stall(bool stalled);
  // The next frame's LD write-back reports these TDES3 error bits (docs/hardware/dwmac.md §5.2 TX
  // write-back: 0 IHE, 2 UF, 8 EC, 9 LC, 10 NC, 11 LoC, 12 PCE, 14 JT ...)
  // with ES (15); the frame does not reach the wire. Counted in tx_errors.
  void inject_tx_error(std::uint32_t tdes3_error_bits);
  // Faults a driver's self-test must catch (the DMA and the CPU disagreeing
  // about memory, as on a bus master that is not cache-coherent), each for
  // the next frame only.
  enum class DmaFault {
    // The RX frame's bytes land in the buffer but its descriptors are never
    // written back: OWN stays set.
    kRxWritebackDropped,
    // The RX descriptors are written back but the frame's bytes never reach
    // the buffer: the CPU reads what was there before.
    kRxBufferStale,
    // The TX DMA reads the descriptor as it was before the driver wrote it
    // (OWN clear): it sends nothing and suspends (TBU). Strikes the next
    // descriptor the driver armed.
    kTxDescriptorStale,
  };
  void inject_dma_fault(DmaFault fault);
  PhyModel& phy() { return phy_; }

  // Introspection for tests.
  enum class DmaState { kStopped, kRunning, kSuspended };
  DmaState tx_state() const { return tx_.state; }
  DmaState rx_state() const { return rx_.state; }
  std::uint64_t tx_current_descriptor() const { return tx_.current; }  // also CURRENT_APP_TXDESC
  std::uint64_t rx_current_descriptor() const { return rx_.current; }
  std::size_t rx_fifo_frames() const {
    return rx_fifo_.size();
  }  // frames waiting in the MTL RX FIFO
  std::size_t tx_fifo_frames() const {
    return tx_fifo_.size();
  }  // sent frames held while TE is clear
  bool in_reset() const { return reset_reads_left_ > 0 || stuck_reset_; }
  // MTL queue 0 as programmed: 0 in store-and-forward mode (TSF / RSF set),
  // else the threshold in bytes (TTC / RTC decoded).
  std::uint32_t tx_threshold() const;
  std::uint32_t rx_threshold() const;
  std::uint32_t peek(std::uint32_t offset) const;  // register value without read side effects

  struct Counters {
    std::uint64_t tx_frames = 0, tx_bytes = 0, tx_descriptors = 0, tx_checksums_inserted = 0;
    std::uint64_t rx_delivered = 0, rx_descriptors = 0, rx_queued = 0, rx_dropped_off = 0,
                  rx_dropped_fifo_full = 0, rx_dropped_filtered = 0, rx_dropped_error = 0;
    std::uint64_t tail_writes_tx = 0, tail_writes_rx = 0, resets = 0, bus_errors = 0,
                  writes_during_reset = 0, unknown_register_accesses = 0, mdio_transactions = 0;
    std::uint64_t tx_errors = 0;  // frames written back with ES (inject_tx_error)
    // Threshold mode: frames whose CIC was ignored (TSF clear), and error
    // frames forwarded despite FEP clear (longer than RTC).
    std::uint64_t tx_checksums_bypassed = 0, rx_error_frames_cut_through = 0;
    std::uint64_t mmc_interrupts = 0;  // MMC counter interrupt bits set (half or full scale)
    // MAC_CONFIGURATION writes that changed PS, FES or DM with TE or RE set,
    // and the frames they damaged (the next one each way).
    std::uint64_t speed_changes_while_enabled = 0, frames_damaged_by_speed_change = 0;
    std::uint64_t tx_looped_back = 0;       // frames sent with LM set (back to RX, not to the wire)
    std::uint64_t dma_faults_injected = 0;  // inject_dma_fault() faults that struck
  };
  const Counters& counters() const { return counters_; }

 private:
  struct DmaChannel {
    DmaState state = DmaState::kStopped;
    std::uint64_t current = 0;
    bool fatal = false;         // stopped by a bus error until SWR
    bool inject_fault = false;  // next descriptor access fails
  };
  struct RxFrame {
    std::vector<std::byte> bytes;  // as stored in the FIFO (FCS included unless stripped)
    std::uint32_t error_bits = 0;  // RDES3 error bits (CE, RE, GP, OE)
  };
  // Which AXI access failed (docs/hardware/dwmac.md §4.2 TEB/REB encoding).
  enum class BusAccess : std::uint32_t {
    kWriteBuffer = 1,
    kWriteDescriptor = 3,
    kReadBuffer = 5,
    kReadDescriptor = 7,
  };

  bool known_register(std::uint32_t offset) const;
  void reset_all();
  void raise_status(std::uint32_t bits);
  void update_interrupt_line();
  std::uint32_t dma_interrupt_bits() const;
  void bus_error(Channel channel, BusAccess access);

  std::uint64_t ring_base(Channel channel) const;
  std::uint32_t ring_count(Channel channel) const;
  std::uint64_t ring_stride() const;
  std::uint64_t tail(Channel channel) const;
  std::uint64_t next_descriptor(Channel channel, std::uint64_t current) const;
  bool read_descriptor(Channel channel, std::uint64_t address, std::uint32_t (&words)[4]);
  bool write_descriptor(Channel channel, std::uint64_t address, const std::uint32_t (&words)[4]);

  void write_mac_configuration(std::uint32_t value);
  void write_mdio_address(std::uint32_t value);
  void complete_mdio();
  void write_tx_control(std::uint32_t value);
  void write_rx_control(std::uint32_t value);
  void write_status(std::uint32_t value);
  void write_mmc_control(std::uint32_t value);
  void mmc_count(std::uint32_t offset, std::uint32_t amount);
  std::uint32_t mac_mmc_status() const;
  bool mac_interrupt_pending() const;

  void run_tx();
  void finish_tx_frame(std::uint32_t first_tdes3);
  void emit(std::vector<std::byte> frame);
  // A frame entering the receive engine: from the PHY (the wire) or, in
  // loopback, from the MAC's own transmit engine.
  RxOutcome receive(std::span<const std::byte> frame, RxFault fault, bool through_phy);
  void run_rx();
  bool deliver_rx(const RxFrame& frame);
  std::uint32_t rx_buffer_bytes() const;
  std::size_t rx_fifo_capacity() const;
  std::size_t rx_fifo_bytes() const;
  bool accepts(std::span<const std::byte> frame) const;
  std::uint32_t rx_checksum_status(std::span<const std::byte> frame) const;

  DmaRegion& dma_;
  Options options_;
  PhyModel phy_;
  Counters counters_;
  // Plain read/write storage by byte offset: which registers exist (set by
  // reset_all) and their values. Flat, not a map: every register access of
  // the host board goes through here.
  class RegisterFile {
   public:
    static constexpr std::uint32_t kBytes = 0x1200;  // MAC, MTL and DMA channel 0
    std::uint32_t& operator[](std::uint32_t offset) {
      present_[offset / 4] = true;
      return values_[offset / 4];
    }
    std::uint32_t at(std::uint32_t offset) const { return values_[offset / 4]; }
    std::size_t count(std::uint32_t offset) const {
      return offset < kBytes && offset % 4 == 0 && present_[offset / 4] ? 1 : 0;
    }
    std::uint32_t value_or_zero(std::uint32_t offset) const {
      return count(offset) != 0 ? values_[offset / 4] : 0;
    }
    void clear() {
      values_.fill(0);
      present_.fill(false);
    }

   private:
    std::array<std::uint32_t, kBytes / 4> values_{};
    std::array<bool, kBytes / 4> present_{};
  };
  RegisterFile regs_;
  unsigned reset_reads_left_ = 0;
  bool stuck_reset_ = false;
  unsigned mdio_reads_left_ = 0;
  bool mdio_busy_ = false;
  bool mdio_stuck_ = false;
  DmaChannel tx_;
  DmaChannel rx_;
  bool tx_stalled_ = false;
  bool damage_next_tx_ = false, damage_next_rx_ = false;  // a speed change under TE/RE
  bool fault_rx_writeback_ = false, fault_rx_buffer_ = false, fault_tx_descriptor_ = false;
  std::uint32_t tx_error_bits_ = 0;  // injected for the next frame
  std::vector<std::byte> tx_frame_;  // FD..LD gather in progress
  std::uint32_t tx_first_tdes3_ = 0;
  bool tx_in_frame_ = false;
  std::deque<std::vector<std::byte>> tx_fifo_;  // completed while TE was clear
  std::deque<RxFrame> rx_fifo_;
  std::function<void(std::span<const std::byte>)> transmit_sink_;
  std::function<void(bool)> line_callback_;
  bool line_ = false;
  bool running_tx_ = false;  // re-entrancy guard: a sink may write registers
  bool running_rx_ = false;
};

}  // namespace starling::model

#endif  // STARLING_DRIVERS_DWMAC_MODEL_DWMAC_MODEL_H_
