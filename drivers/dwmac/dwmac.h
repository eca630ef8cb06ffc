#ifndef STARLING_DRIVERS_DWMAC_DWMAC_H_
#define STARLING_DRIVERS_DWMAC_DWMAC_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivers/dwmac/descriptors.h"
#include "drivers/dwmac/mdio.h"
#include "drivers/dwmac/registers.h"
#include "drivers/mmio/register_bus.h"
#include "drivers/nic/ring_driver.h"
#include "drivers/phy/phy.h"
#include "kernel/async/interrupt_source.h"
#include "kernel/async/task.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"

// Synopsys DWC Ethernet QoS 5.10a / 5.20 ("dwmac4/5"; the JH7110's GMACs are
// 5.20) behind hal::Nic. Facts: docs/hardware/dwmac.md §2-§8, docs/hardware/jh7110.md.
//
// Rings: 256 normal descriptors each way, 16 bytes apart (DSL 0), one page
// per ring. The tail pointer is exclusive (docs/hardware/dwmac.md §5.6: just past the last valid
// descriptor) and one slot always stays empty, so at most 255 descriptors
// are with the DMA; tails are written once per burst, not per frame.
//
// RX is zero-copy over a pool of 256 buffers of 2 KiB (RBSZ 2048, so every
// frame up to 1518 bytes + VLAN + FCS lands in one buffer). A buffer is free,
// posted (in a ring slot) or held by the stack; a slot remembers which
// buffer it holds, since write-back overwrites RDES0-2 and the address is
// rewritten on every re-arm. Frames that span descriptors (longer than
// 2 KiB: giants the MAC passed) are dropped and counted, their buffers
// re-queued: the HAL hands out one buffer per frame. The MAC strips the
// FCS (MAC_CONFIGURATION ACS + CST), so the length written back is the frame
// the stack gets. Error frames (RDES3.ES: CRC, overflow, watchdog, giant,
// dribble) are forwarded by the MTL (FEP) so they are counted here, then
// dropped with their buffer re-queued. RX checksum offload (IPC): a frame
// whose IPv4 TCP/UDP checksum the engine checked and found right (RDES1:
// IPV4, PT UDP or TCP, no IPHE, IPCE or IPCB) is marked checksum_verified,
// and the netif skips lwIP's check for it (never for an IP fragment); one
// with an IP header or payload checksum error is counted and still
// delivered, for lwIP to check and drop.
//
// TX copies once into the slot's 2 KiB buffer; one descriptor per frame
// (FD|LD), IOC on each, checksum insertion (CIC = 11; 01, the IP header
// only, for an IPv4 fragment) when HW_FEATURE0 has TX COE and the MTL runs
// store-and-forward (BoardParams::dma_mode).
// CIC = 11 computes the IPv4 header, TCP, UDP and ICMP checksums whole,
// pseudo-header included, over whatever the fields held
// (docs/hardware/dwmac.md §5.1), so enable_tx_checksum_offload() tells the
// stack to leave all four out. Completed slots are reclaimed lazily, when
// transmitting.
//
// Interrupts (DMA channel 0, NIE|AIE|FBEE always; RIE only while sleeping,
// TIE only while sleeping on a full TX ring): interrupt() only signals;
// wait_for_work() acknowledges DMA_CH0_STATUS (write 1 to clear), handles a
// fatal bus error by a full reset and re-initialisation, polls the PHY at
// least every 500 ms (the Star64 PHY's interrupt is not wired to the MAC),
// and sleeps only after re-enabling RIE and finding the ring still empty.
//
// Fatal bus error recovery: SWR and the init sequence again. RX buffers the
// stack holds stay valid and are re-posted when released; RX frames written
// back but not yet received are kept and received first. TX frames
// accepted but not completed (OWN still set) are moved, in order, to the
// front of the ring and sent after the reset: none is lost; one that was
// on the wire as the error struck may go out twice.
//
// DMA memory must lie below 4 GiB (descriptors carry 32-bit addresses; the
// upper-address words are left 0): init() refuses pages above with kNoMemory.
namespace starling::dwmac {

// The PHY is its own driver (drivers/phy); the MAC reads its link and hands
// a board's YT8531 settings through. Named here as the MAC's API has always
// named them.
using phy::LinkSpeed;
using phy::Phy;
using phy::PhyLink;
using phy::PhyParams;
using phy::Yt8531Settings;

inline constexpr std::uint16_t kDwmacRxBuffers = 256;

class Dwmac : public nic::RingDriver<Dwmac, kDwmacRxBuffers> {
 public:
  static constexpr std::uint16_t kRxRingSize = 256;
  static constexpr std::uint16_t kTxRingSize = 256;
  static constexpr std::uint16_t kRxBuffers = kDwmacRxBuffers;
  static constexpr std::uint32_t kBufferBytes = 2048;
  // Linux waits up to 1 s for SWR; it takes a few CSR clocks when the clocks
  // run, and never completes without the PHY's RX clock (docs/hardware/dwmac.md §6.1 step 2).
  // init() waits this long once; then the reset is retried at every link
  // poll (kLinkPollNs) for kResetRetryNs, until it completes.
  static constexpr std::uint64_t kResetTimeoutNs = 100'000'000;
  static constexpr std::uint64_t kResetRetryNs = 1'000'000;
  static constexpr std::uint64_t kLinkPollNs = 500'000'000;
  // TE and RE cleared, the engines finish the frame in progress: a
  // 1518-byte frame takes 1.2 ms at 10 Mb/s.
  static constexpr std::uint64_t kMacIdleTimeoutNs = 2'000'000;
  // The self-test's frame crosses the MAC in microseconds at any speed.
  static constexpr std::uint64_t kSelfTestTimeoutNs = 10'000'000;

  // Cores accepted (MAC_VERSION.SNPSVER): 0x51 = 5.10a, 0x52 = 5.20.
  static constexpr std::uint32_t kSnpsVer510a = 0x51;
  static constexpr std::uint32_t kSnpsVer520 = 0x52;

  // How the MTL queues hand frames on (docs/hardware/dwmac.md §3.1, §7.1, §10).
  enum class DmaMode : std::uint8_t {
    // TSF + RSF: a frame moves on only once it is whole in the FIFO. TX
    // checksum insertion works only in this mode. sDDF's choice, and the one
    // measured on a Star64 (954.5 Mb/s UDP echo).
    kStoreAndForward,
    // TSF = RSF = 0: a frame moves on once tx_threshold / rx_threshold bytes
    // of it are in the FIFO (TTC, RTC). Linux's on the JH7110
    // (`snps,force_thresh_dma_mode`). No TX checksum insertion.
    kThreshold,
  };

  // The DMA set-up is a board choice (docs/hardware/dwmac.md §7.4, §10): the
  // defaults are the lab-measured configuration (sDDF's MTL mode, offloads
  // and PBLs; the AXI settings below). platform/star64/gmac_params.h lets
  // the kernel command line pick another.
  struct BoardParams {
    DmaMode dma_mode = DmaMode::kStoreAndForward;
    // Threshold mode only (ignored with store-and-forward), in bytes. TX
    // (TTC): 32, 64, 96, 128, 192, 256, 384 or 512; RX (RTC): 32, 64, 96 or
    // 128; a count between two rounds up (reg::mtl_txq::ttc, mtl_rxq::rtc).
    // 64 is Linux's default threshold (stmmac's TC_DEFAULT) both ways.
    std::uint16_t tx_threshold = 64, rx_threshold = 64;
    // DMA burst lengths. Default: TxPBL = RxPBL = 32 without x8 (bursts of
    // 32 beats), Starling's own choice: sDDF's driver writes no PBL
    // (docs/hardware/dwmac.md §7.4), Linux uses 16 / 16. The seed's JH7110 patch (PBLx8, TxPBL 2,
    // RxPBL 8) is {.tx_pbl = 2, .rx_pbl = 8, .pbl_x8 = true}.
    std::uint32_t tx_pbl = 32, rx_pbl = 32;
    bool pbl_x8 = false;
    // DMA_SYSBUS_MODE comes from these three alone (sysbus_mode() below).
    // Default: fixed bursts (FB) of 4, 8 or 16 beats (BLEN4|BLEN8|BLEN16),
    // at most 4 outstanding reads and 4 writes (RD/WR_OSR_LMT = 3); no EAME
    // (32-bit addresses), no LPI. Linux's JH7110 device tree asks for fixed
    // bursts of 32 to 256 beats and writes its `snps,{rd,wr}_osr_lmt` (4 in
    // earlier trees, 15 now) into the fields unchanged: 5 or 16 requests
    // (docs/hardware/dwmac.md §10.2).
    bool fixed_burst = true;
    // BLENn set for every n = 4, 8, ..., 256 with min_burst <= n <= max_burst.
    std::uint16_t min_burst = 4, max_burst = 16;
    // AXI requests in flight each way, 1-16: RD_OSR_LMT = WR_OSR_LMT =
    // axi_outstanding - 1.
    std::uint8_t axi_outstanding = 4;
    bool descriptor_prefetch = true;     // DMA_MODE.DCHE, honoured only on cores >= 5.20
    std::uint32_t mdio_clock_range = 5;  // MDIO CR 5: a CSR clock of 250-300 MHz
    // TX CIC + RX IPC when HW_FEATURE0 says the core has them; TX insertion
    // only in store-and-forward mode (enable_tx_checksum_offload()).
    bool checksum_offload = true;
    // One frame through the MAC's internal loopback before the link is
    // used (self_test.cc): on by default, `selftest=off` on the Star64.
    bool self_test = true;
    // Register dumps on the console (register_dump.cc): the DMA set-up read
    // back after init, and the DMA state at the first TX timeout.
    bool debug = false;
  };

  // The DMA_SYSBUS_MODE value `params` asks for.
  static constexpr std::uint32_t sysbus_mode(const BoardParams& params) {
    const std::uint32_t osr = params.axi_outstanding == 0 ? 0u : params.axi_outstanding - 1u;
    return (params.fixed_burst ? reg::sysbus::kFb : 0u) |
           reg::sysbus::blen(params.min_burst, params.max_burst) | reg::sysbus::rd_osr_limit(osr) |
           reg::sysbus::wr_osr_limit(osr);
  }

  struct Config {
    std::uintptr_t base = 0;             // register block
    std::uint32_t irq = 0;               // PLIC source of macirq; 0 = caller calls interrupt()
    mmio::RegisterBus* model = nullptr;  // host tests / host board: a device model
    hal::MacAddress mac;
    BoardParams params;
    // The PHY behind this MAC, the board's and apart from the MAC's set-up:
    // init() brings it up through the MAC's MDIO bus (Phy::bring_up).
    PhyParams phy{};
    std::uint64_t link_wait_ns = 0;  // init() waits up to this long for link up (0 = don't)
  };

  struct DriverStats {
    std::uint64_t rx_buffer_unavailable = 0, tx_buffer_unavailable = 0, rx_error_frames = 0,
                  rx_crc_errors = 0, rx_checksum_errors = 0, fatal_bus_errors = 0, recoveries = 0,
                  link_changes = 0, tx_completions = 0;
    // Software resets that did not complete in time (the PHY's RX clock
    // stopped, no cable), each retried at the next link poll.
    std::uint64_t reset_timeouts = 0;
    std::uint64_t rx_spanning_frames = 0;  // longer than a buffer: dropped
    std::uint64_t rx_missed_frames = 0;    // dropped by the MTL for want of descriptors
    std::uint64_t tx_error_frames = 0;     // TDES3.ES on write-back
    // Link polls (every kLinkPollNs) that found frames in flight and none
    // completed since the poll before: a transmitter that stopped.
    std::uint64_t tx_timeouts = 0;
    // Link changes where the MAC's engines had not gone idle within
    // kMacIdleTimeoutNs of TE and RE clearing (the speed was changed anyway).
    std::uint64_t mac_stop_timeouts = 0;
  };

  // What the first-power-on self-test found (self_test.cc).
  enum class SelfTest : std::uint8_t { kNotRun, kPassed, kFailed };

  Dwmac() = default;
  Dwmac(const Dwmac&) = delete;
  Dwmac& operator=(const Dwmac&) = delete;

  // Brings up the PHY first (its RX clock must run for the MAC's reset:
  // docs/hardware/star64-reference-drivers.md §5), then resets and programs
  // the MAC (docs/hardware/dwmac.md §6.1), fills the RX ring, and optionally
  // waits for the link. A software reset that does not complete is not an
  // error: the port stays down (core_ready() false, transmit busy) and the
  // reset is retried at every link poll until it completes, as a cable
  // plugged in later starts the PHY's clock. kUnsupported (with a console
  // line) for a core other than 5.10a/5.20; kTimedOut if MDIO or the PHY's
  // reset never completes (the console line says which); kInvalidArgument
  // for PHY settings Phy::valid() refuses; kNoMemory; kDeviceError if no
  // PHY answers or the PLIC source cannot be attached.
  Result<void> init(const Config& config, mem::PageAllocator& pages);

  // hal::Nic. transmit(), transmit_gather() and release() are the shared
  // ring policy (drivers/nic/ring_driver.h).
  std::size_t receive(std::span<hal::RxFrame> out);
  // CIC = 11 is set on every frame whether or not this is called: over
  // checksums the stack computed it changes nothing. In threshold mode
  // (DmaMode::kThreshold) nothing is offered and CIC stays 00: the databook
  // allows TX checksum insertion only with store-and-forward (MTL TSF,
  // docs/hardware/dwmac.md §5.1), because the engine writes the checksums
  // into the headers after it has seen the whole frame, and in threshold
  // mode the frame's start may already be on the wire by then. Linux does
  // the same ("TXCOE doesn't work in thresh DMA mode", stmmac_hw_init).
  hal::TxChecksumOffload enable_tx_checksum_offload() const {
    return {.ipv4_header = tx_checksum_,
            .udp = tx_checksum_,
            .tcp = tx_checksum_,
            .icmp = tx_checksum_};
  }
  // The hash filter instead of "pass all multicast": each group's bin (the
  // upper 6 bits of the bit-reversed CRC-32 of the address, as Linux's
  // stmmac computes it) set in the 64-bin table, PACKET_FILTER.HMC on and
  // PM off. Other groups sharing a bin still pass (the netif drops them).
  void set_multicast_groups(std::span<const hal::MacAddress> groups);
  hal::MacAddress mac() const { return mac_; }
  // Up only with the PHY's link up and the MAC out of its reset.
  hal::LinkState link() const {
    return link_.up && core_ready_ ? hal::LinkState::kUp : hal::LinkState::kDown;
  }
  const hal::NicStats& stats() const { return stats_; }

  // The macirq handler's work: trap-context safe (signals only).
  // The interrupt handler (trap context, or the host board's line owner):
  // reads DMA_CH0_STATUS and clears what it found (write 1 to clear), as
  // Linux's stmmac_interrupt does, keeps the flags for service(), and
  // signals the waiting task. Touches no register while the core is in
  // software reset.
  void interrupt();
  // Asks the PHY; on a change turns the MAC's transmitter and receiver off
  // (and waits for both engines to go idle), and, if the link is up, sets
  // the PHY's TX clock inversion for the new speed, programs
  // MAC_CONFIGURATION PS/FES/DM and turns them on again: the order of
  // Linux's stmmac under phylink (docs/hardware/dwmac.md §6.2). Down, the
  // MAC stays quiet at the speed it had. Retries a software reset that has
  // not completed (and runs the self-test once it has).
  Result<hal::LinkState> poll_link();
  SelfTest self_test_result() const { return self_test_; }
  // The MAC is out of its software reset and programmed.
  bool core_ready() const { return core_ready_; }
  const DriverStats& driver_stats() const { return driver_stats_; }
  std::uint32_t core_version() const { return snps_version_; }
  const PhyLink& phy_link() const { return link_; }
  const BoardParams& params() const { return params_; }
  const PhyParams& phy_params() const { return phy_params_; }
  // What init() settled on from the params and HW_FEATURE0.
  bool tx_checksum_insertion() const { return tx_checksum_; }
  bool rx_checksum_checking() const { return rx_checksum_; }
  std::uint32_t phy_id() const { return phy_.id(); }

 private:
  enum class BufferState : std::uint8_t { kFree, kPosted, kHeld };

  Result<void> allocate(mem::PageAllocator& pages);
  // Sets SWR and waits up to `timeout_ns` for it to clear.
  Result<void> reset_core(std::uint64_t timeout_ns);
  // SWR, then the registers (rings laid out fresh unless recover() kept
  // them); core_ready_ on success.
  Result<void> start_core(std::uint64_t timeout_ns);
  void read_features();
  void configure();  // docs/hardware/dwmac.md §6.1 steps 4-11, rings already laid out
  void program_speed();
  // TE and RE off, then a bounded wait for MAC_DEBUG to show both protocol
  // engines idle (the frame in progress each way finishes; frames behind
  // it wait in the MTL and leave at the new speed).
  void stop_mac();
  void start_mac();
  void set_interrupts(std::uint32_t enable);
  // self_test.cc: once, the first time the core is out of reset.
  void run_self_test();
  // register_dump.cc (BoardParams::debug).
  void dump_dma_setup() const;
  void dump_tx_state() const;
  // At each link poll: counts a TX timeout (frames in flight, none
  // completed since the last poll) and reports the first.
  void check_tx_progress();
  // Handles the DMA_CH0_STATUS flags interrupt() acknowledged (read and
  // acknowledged here when there is no interrupt line); recovers from a
  // fatal bus error. True if the caller has something to look at.
  Result<bool> service();
  // DMA_CH0_MISS_FRAME_CNT (clear on read) into the counters.
  void collect_missed_frames();
  // Reads DMA_CH0_STATUS and clears the flags it found (interrupt()'s work;
  // service()'s when the device is polled).
  std::uint32_t acknowledge_status();
  Result<void> recover();
  void lay_out_fresh_rings();

  bool rx_ready() const;
  void free_rx_buffer(std::uint16_t buffer);
  void refill_rx();
  std::uint32_t tx_in_flight() const { return tx_head_ - tx_clean_; }
  void write_tx_tail();

  // The ring operations nic::RingDriver runs the policy on.
  friend class nic::RingDriver<Dwmac, kDwmacRxBuffers>;
  // Completed TX slots back, and RX buffers whose loan ended re-armed.
  void reclaim_tx();
  // The same without re-arming (the ring is being laid out again): true
  // if a loan's end freed an RX buffer.
  bool collect_tx();
  // One slot stays empty: the tail pointer is exclusive. A MAC still in
  // its reset takes nothing.
  bool tx_full() const { return !core_ready_ || tx_in_flight() == kTxRingSize - 1u; }
  void fill_tx(std::span<const hal::TxFragment> fragments, std::uint32_t bytes);
  // In place: TDES0 points into the RX buffer (the DMA reads TX buffers at
  // any byte address; only RX buffers must be bus-word aligned).
  bool can_send_in_place(hal::RxHandle handle, std::span<const std::byte> frame) const;
  void fill_tx_in_place(hal::RxHandle handle, std::span<std::byte> frame);
  // TDES0-3 of the next slot for `bytes` at `buffer`, OWN last.
  void post_tx(mem::PhysAddr buffer, std::uint32_t bytes);
  std::uint32_t tx_checksum_bits(mem::PhysAddr buffer, std::uint32_t bytes) const;
  void start_tx() { write_tx_tail(); }
  bool rx_held(hal::RxHandle handle) const {
    return handle < kRxBuffers && rx_state_[handle] == BufferState::kHeld;
  }
  void repost_rx(hal::RxHandle handle) { free_rx_buffer(static_cast<std::uint16_t>(handle)); }
  void publish_rx() { refill_rx(); }
  hal::NicStats& nic_stats() { return stats_; }
  // service(), and the link poll when it is due (a TX timeout check, the
  // PHY, a reset retried): true if either has something for the stack.
  Result<bool> service_device();
  bool rings_ready() const { return core_ready_; }
  // RIE (and TIE with the ring full) on, then one more look.
  bool arm_interrupts(bool tx_full);
  void disarm_interrupts();
  std::uint64_t wake_deadline_ns() const { return next_link_poll_ns_; }

  mem::PhysAddr rx_buffer_phys(std::uint16_t b) const {
    return rx_buffers_phys_ + std::uint64_t{b} * kBufferBytes;
  }

  mmio::Registers regs_;
  BoardParams params_;
  PhyParams phy_params_;
  Mdio mdio_;
  Phy phy_;
  std::uint32_t snps_version_ = 0;
  std::uint32_t hw_feature0_ = 0, hw_feature1_ = 0;
  bool tx_checksum_ = false, rx_checksum_ = false;

  Descriptor* rx_ring_ = nullptr;
  Descriptor* tx_ring_ = nullptr;
  mem::PhysAddr rx_ring_phys_ = 0, tx_ring_phys_ = 0;
  mem::PhysAddr rx_buffers_phys_ = 0, tx_buffers_phys_ = 0;

  // RX: free-running slot counters; slots [rx_next_, rx_fill_) are the
  // DMA's or written back and not yet received.
  std::uint32_t rx_next_ = 0, rx_fill_ = 0;
  bool rx_discarding_ = false;  // inside a frame that spans descriptors
  std::array<std::uint16_t, kRxRingSize> rx_slot_buffer_{};
  std::array<BufferState, kRxBuffers> rx_state_{};
  std::array<std::uint16_t, kRxBuffers> rx_free_{};
  std::uint32_t rx_free_count_ = 0;

  // TX: slots [tx_clean_, tx_head_) are in flight; each slot owns a buffer
  // (a permutation, rotated with the ring on recovery).
  std::uint32_t tx_head_ = 0, tx_clean_ = 0;
  std::array<std::uint16_t, kTxRingSize> tx_slot_buffer_{};
  // Per slot: 1 + the RX buffer it sends from (transmit_in_place), or 0;
  // rotated with the ring like tx_slot_buffer_.
  std::array<std::uint16_t, kTxRingSize> tx_slot_loan_{};

  hal::MacAddress mac_;
  PhyLink link_{.up = false};
  std::uint64_t next_link_poll_ns_ = 0;
  hal::NicStats stats_;
  DriverStats driver_stats_;
  bool attached_ = false;
  bool core_ready_ = false;
  // DMA_CH0_STATUS flags interrupt() cleared and service() has not handled.
  std::atomic<std::uint32_t> pending_status_{0};
  bool rings_ready_ = false;  // laid out for the next configure() (fresh, or kept by recover())
  SelfTest self_test_ = SelfTest::kNotRun;
  bool self_test_tried_ = false;
  std::uint32_t tx_clean_at_poll_ = 0;  // tx_clean_ at the last link poll
  bool tx_in_flight_at_poll_ = false;   // frames were in flight then
};

static_assert(hal::Nic<Dwmac>);
// Its capabilities, so that a change of signature cannot quietly drop one
// (the netif would fall back to copying and computing checksums).
static_assert(hal::NicSendsInPlace<Dwmac> && hal::NicOffloadsTxChecksums<Dwmac> &&
              hal::NicFiltersMulticast<Dwmac>);

}  // namespace starling::dwmac

#endif  // STARLING_DRIVERS_DWMAC_DWMAC_H_
