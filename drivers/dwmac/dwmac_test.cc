// Host test: the DWMAC driver against the register-level device model
// (//drivers/dwmac/model:model), with rings and buffers from a page allocator
// over the model's DMA region (addresses below 4 GiB, as on the JH7110), the
// model's interrupt line wired to Dwmac::interrupt(), and the coroutine
// runtime of the host board. Runs under ASan and UBSan.

#include "drivers/dwmac/dwmac.h"

#include <gtest/gtest.h>

#include <cstdio>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/dwmac/dwmac_test_rig.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/registers.h"
#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "kernel/async/as_task.h"
#include "kernel/async/sleep.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/mem/page_allocator.h"
#include "kernel/test_frames/frames.h"

namespace starling::dwmac {
namespace {

using model::DwmacModel;
using model::PhyModel;

using testing::frame_of;
using testing::jh7110;
using testing::kMac;
using testing::kRegionBytes;
using DwmacTest = testing::DwmacRig;

// IPv4/UDP to us with both checksums left 0, for the MAC to fill in; each
// payload byte is its offset in the frame.
std::vector<std::byte> udp_frame() {
  std::vector<std::byte> payload(18);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(42 + i);
  return test_frames::udp_frame({.dst = kMac.bytes, .src = {0x02, 0, 0, 0, 0, 0}},
                                {.src = 0x0A000001, .dst = 0x0A000002, .id = 1, .checksum = false},
                                {.src_port = 0x1234, .dst_port = 7}, payload);
}

// docs/hardware/dwmac.md §6.1 init sequence, as the registers show it afterwards.
// The PHY wiring is the board's (platform/star64/gmac0.h): a YT8531 adding
// 1500 ps to RX, as the Star64's device tree asks.
constexpr PhyParams kYt8531RxDelay{.settings = {.rx_delay_ps = 1500}};
// Tests that count ring slots from a fresh ring: the self-test's frame
// would take the first slot each way (its own tests are below).
constexpr Dwmac::BoardParams kNoSelfTest{.self_test = false};

TEST_F(DwmacTest, InitProgramsTheRegisters) {
  phy_params_ = kYt8531RxDelay;
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  EXPECT_EQ(driver_.core_version(), 0x52u);
  using namespace reg;
  EXPECT_EQ(reg(kMacRxqCtrl0) & 3, 2u);
  EXPECT_EQ(reg(kMacAddress0High) & 0xFFFF, 0x5B75u);
  EXPECT_EQ(reg(kMacAddress0Low), 0x0039CF6Cu);
  const std::uint32_t config = reg(kMacConfiguration);
  EXPECT_EQ(config & (mac_config::kTe | mac_config::kRe), mac_config::kTe | mac_config::kRe);
  EXPECT_EQ(config & (mac_config::kAcs | mac_config::kCst), mac_config::kAcs | mac_config::kCst);
  // The PHY model autonegotiates 1000/full: PS = FES = 0, DM = 1.
  EXPECT_EQ(config & mac_config::kSpeedMask, mac_config::kDm);
  EXPECT_EQ(driver_.link(), hal::LinkState::kUp);
  // Bursts: sDDF's 32/32 without x8; RBSZ 2048 (register value 2048 << 1).
  EXPECT_EQ(reg(kDmaCh0Control) & ch_control::kPblx8, 0u);
  EXPECT_EQ((reg(kDmaCh0TxControl) >> 16) & 0x3F, 32u);
  EXPECT_EQ((reg(kDmaCh0RxControl) >> 16) & 0x3F, 32u);
  EXPECT_EQ((reg(kDmaCh0RxControl) >> 1) & 0x3FFF, 2048u);
  EXPECT_NE(reg(kDmaCh0TxControl) & ch_tx_control::kSt, 0u);
  EXPECT_NE(reg(kDmaCh0RxControl) & ch_rx_control::kSr, 0u);
  EXPECT_EQ(reg(kDmaMode) & dma_mode::kDche, dma_mode::kDche);  // 5.20 core
  // FB | BLEN16 | BLEN8 | BLEN4, RD_OSR_LMT = WR_OSR_LMT = 3 (4 requests).
  EXPECT_EQ(reg(kDmaSysbusMode), 0x0303'000Fu);
  EXPECT_EQ(reg(kDmaSysbusMode), Dwmac::sysbus_mode(Dwmac::BoardParams{}));
  // 2 KiB FIFOs (HW_FEATURE1 field 4): TQS = RQS = 2048/256 - 1 = 7.
  EXPECT_EQ((reg(kMtlTxq0OperationMode) >> 16) & 0x1FF, 7u);
  EXPECT_EQ((reg(kMtlRxq0OperationMode) >> 20) & 0x3FF, 7u);
  EXPECT_NE(reg(kMtlTxq0OperationMode) & mtl_txq::kTsf, 0u);
  EXPECT_NE(reg(kMtlRxq0OperationMode) & mtl_rxq::kRsf, 0u);
  // Rings: N - 1; RX tail exclusive, just past the 255 armed descriptors
  // (one slot kept empty); TX tail = base (empty).
  EXPECT_EQ(reg(kDmaCh0TxDescRingLength), 255u);
  EXPECT_EQ(reg(kDmaCh0RxDescRingLength), 255u);
  const std::uint32_t rx_base = reg(kDmaCh0RxDescListAddress);
  const std::uint32_t tx_base = reg(kDmaCh0TxDescListAddress);
  EXPECT_EQ(reg(kDmaCh0RxDescTailPointer), rx_base + 255 * 16);
  EXPECT_EQ(reg(kDmaCh0TxDescTailPointer), tx_base);
  EXPECT_TRUE(region_->contains(rx_base, 4096));
  EXPECT_TRUE(region_->contains(tx_base, 4096));
  // NIE | AIE | FBEE; RIE only while sleeping.
  EXPECT_EQ(reg(kDmaCh0InterruptEnable), dma_status::kNis | dma_status::kAis | dma_status::kFbe);
  EXPECT_EQ(model_->rx_state(), DwmacModel::DmaState::kRunning);
  // PHY: reset once, YT8531 RX delay 1500 ps = 10 steps of 150 ps in 13:10,
  // no RXC_DLY_EN; autonegotiation restarted.
  EXPECT_EQ(driver_.phy_id(), Phy::kIdYt8531);
  EXPECT_EQ(model_->phy().counters().resets, 1u);
  EXPECT_GE(model_->phy().counters().autoneg_restarts, 1u);
  EXPECT_EQ((model_->phy().extended(Phy::kYtRgmiiConfig1) >> 10) & 0xF, 10u);
  EXPECT_EQ(model_->phy().extended(Phy::kYtChipConfig) & (1u << 8), 0u);
  // Every MDIO transaction carried CR = 5.
  EXPECT_EQ((reg(kMacMdioAddress) >> 8) & 0xF, 5u);
  EXPECT_EQ(model_->counters().unknown_register_accesses, 0u);
}

// The joined groups into the 64-bin hash table (bins worked out with
// Python's zlib.crc32, as Linux's bitrev32(~crc32_le(~0, addr, 6)) >> 26:
// all-nodes 33:33:00:00:00:01 -> 1, 33:33:ff:12:34:56 -> 61), HMC instead of
// PM; a new set replaces the old.
TEST_F(DwmacTest, MulticastGroupsProgramTheHashFilter) {
  phy_params_ = kYt8531RxDelay;
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  using namespace reg;
  const hal::MacAddress groups[] = {{{0x33, 0x33, 0x00, 0x00, 0x00, 0x01}},
                                    {{0x33, 0x33, 0xFF, 0x12, 0x34, 0x56}}};
  driver_.set_multicast_groups(groups);
  EXPECT_EQ(reg(kMacHashTableReg0), 1u << 1);
  EXPECT_EQ(reg(kMacHashTableReg1), 1u << (61 - 32));
  EXPECT_EQ(reg(kMacPacketFilter), packet_filter::kHmc);
  driver_.set_multicast_groups(std::span<const hal::MacAddress>(groups, 1));
  EXPECT_EQ(reg(kMacHashTableReg1), 0u);
}

TEST_F(DwmacTest, SeedBurstSettingsAnd510aCore) {
  DwmacModel::Options options = jh7110();
  options.version = 0x0000'4151;  // a true 5.10a: no DCHE
  ASSERT_TRUE(start(options, {.tx_pbl = 2, .rx_pbl = 8, .pbl_x8 = true}).ok());
  EXPECT_EQ(driver_.core_version(), 0x51u);
  EXPECT_EQ(reg(reg::kDmaMode) & reg::dma_mode::kDche, 0u);
  EXPECT_NE(reg(reg::kDmaCh0Control) & reg::ch_control::kPblx8, 0u);
  EXPECT_EQ((reg(reg::kDmaCh0TxControl) >> 16) & 0x3F, 2u);
  EXPECT_EQ((reg(reg::kDmaCh0RxControl) >> 16) & 0x3F, 8u);
}

TEST_F(DwmacTest, UnsupportedCoreIsRefused) {
  DwmacModel::Options options = jh7110();
  options.version = 0x0000'1037;  // a 3.7 GMAC-style value
  auto r = start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kUnsupported);
  EXPECT_EQ(model_->counters().resets, 0u);  // not touched
}

// A reset that never completes (clocks off) leaves the port down, taking
// nothing, and retried at every link poll: never an error that ends the
// port for the rest of the boot.
TEST_F(DwmacTest, StuckResetLeavesThePortDownAndRetrying) {
  DwmacModel::Options options = jh7110();
  options.reset_reads = 0;  // SWR never clears
  ASSERT_TRUE(start(options).ok());
  EXPECT_FALSE(driver_.core_ready());
  EXPECT_EQ(driver_.link(), hal::LinkState::kDown);
  const std::uint64_t timeouts = driver_.driver_stats().reset_timeouts;
  EXPECT_GE(timeouts, 1u);
  ASSERT_TRUE(driver_.poll_link().ok());
  EXPECT_EQ(driver_.driver_stats().reset_timeouts, timeouts + 1);
  const std::vector<std::byte> frame = frame_of(1, 60);
  const std::span<const std::byte> one(frame);
  auto sent = driver_.transmit(std::span(&one, 1));
  EXPECT_TRUE(!sent.ok() || *sent == 0);
  EXPECT_TRUE(sent_.empty());
}

TEST_F(DwmacTest, StuckMdioTimesOut) {
  DwmacModel::Options options = jh7110();
  options.mdio_busy_reads = 0;  // GB never clears
  auto r = start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
}

TEST_F(DwmacTest, NoPhyIsADeviceError) {
  DwmacModel::Options options = jh7110();
  options.phy.address = 7;  // nothing at address 0: reads all ones or zeros
  auto r = start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kDeviceError);
}

// Without a link wait, init() returns with autonegotiation (restarted by the
// bring-up) still running; poll_link() then sees it complete.
TEST_F(DwmacTest, NoLinkWaitLeavesTheLinkToPolling) {
  ASSERT_TRUE(start(jh7110(), {}, 0).ok());
  EXPECT_EQ(driver_.link(), hal::LinkState::kDown);
  for (int i = 0; i < 10 && driver_.link() == hal::LinkState::kDown; ++i) {
    ASSERT_TRUE(driver_.poll_link().ok());
  }
  EXPECT_EQ(driver_.link(), hal::LinkState::kUp);
}

TEST_F(DwmacTest, InitWaitsForTheLink) {
  DwmacModel::Options options = jh7110();
  options.phy.speed = PhyModel::Speed::k100;
  options.phy.full_duplex = true;
  ASSERT_TRUE(start(options).ok());
  EXPECT_EQ(driver_.link(), hal::LinkState::kUp);
  EXPECT_EQ(reg(reg::kMacConfiguration) & reg::mac_config::kSpeedMask,
            reg::mac_config::kPs | reg::mac_config::kFes | reg::mac_config::kDm);
}

TEST_F(DwmacTest, LinkWaitGivesUpWithoutACable) {
  DwmacModel::Options options = jh7110();
  options.phy.link_up = false;
  ASSERT_TRUE(start(options, {}, 20'000'000).ok());  // 20 ms
  EXPECT_EQ(driver_.link(), hal::LinkState::kDown);
  // The MAC still runs (1000/full until a link says otherwise).
  EXPECT_EQ(reg(reg::kMacConfiguration) & reg::mac_config::kSpeedMask, reg::mac_config::kDm);
}

// RX checksum offload (IPC): a TCP/UDP frame the engine found right is
// vouched for, one it found wrong is delivered unvouched (and counted), and
// a frame the engine has nothing to say about (not IP) is unvouched.
TEST_F(DwmacTest, RxChecksumOffloadVouchesOnlyForRightChecksums) {
  ASSERT_TRUE(start().ok());
  std::vector<std::byte> payload(64);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(i);
  const auto good =
      test_frames::udp_frame({.dst = kMac.bytes, .src = {0x02, 0, 0, 0, 0, 0}},
                             {.src = 0x0A000001, .dst = 0x0A000002, .id = 1, .checksum = true},
                             {.src_port = 0x1234, .dst_port = 7, .checksum = true}, payload);
  auto bad = good;
  bad.back() ^= std::byte{0x01};
  ASSERT_EQ(model_->receive_from_wire(good), DwmacModel::RxOutcome::kDelivered);
  ASSERT_EQ(model_->receive_from_wire(bad), DwmacModel::RxOutcome::kDelivered);
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 60)), DwmacModel::RxOutcome::kDelivered);
  hal::RxFrame got[3];
  ASSERT_EQ(driver_.receive(got), 3u);
  EXPECT_TRUE(got[0].checksum_verified);
  EXPECT_FALSE(got[1].checksum_verified);
  EXPECT_FALSE(got[2].checksum_verified);
  EXPECT_EQ(driver_.driver_stats().rx_checksum_errors, 1u);
  for (const auto& f : got) ASSERT_TRUE(driver_.release(f.handle).ok());
}

// With checksum offload off (IPC clear), nothing is vouched for.
TEST_F(DwmacTest, NoRxChecksumOffloadNoVouching) {
  ASSERT_TRUE(start(jh7110(), {.checksum_offload = false}).ok());
  std::vector<std::byte> payload(64);
  const auto good =
      test_frames::udp_frame({.dst = kMac.bytes, .src = {0x02, 0, 0, 0, 0, 0}},
                             {.src = 0x0A000001, .dst = 0x0A000002, .id = 1, .checksum = true},
                             {.src_port = 0x1234, .dst_port = 7, .checksum = true}, payload);
  ASSERT_EQ(model_->receive_from_wire(good), DwmacModel::RxOutcome::kDelivered);
  hal::RxFrame got[1];
  ASSERT_EQ(driver_.receive(got), 1u);
  EXPECT_FALSE(got[0].checksum_verified);
  ASSERT_TRUE(driver_.release(got[0].handle).ok());
}

TEST_F(DwmacTest, ChecksumOffloadCanBeTurnedOff) {
  ASSERT_TRUE(start(jh7110(), {.checksum_offload = false}).ok());
  EXPECT_EQ(reg(reg::kMacConfiguration) & reg::mac_config::kIpc, 0u);
  const auto f = udp_frame();
  std::span<const std::byte> one[] = {f};
  ASSERT_EQ(*driver_.transmit(one), 1u);
  EXPECT_EQ(model_->counters().tx_checksums_inserted, 0u);
  EXPECT_EQ(sent_.at(0), f);  // checksums still 0: CIC = 00
}

TEST_F(DwmacTest, SingleAndBatchedFramesBothWays) {
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 60)), DwmacModel::RxOutcome::kDelivered);
  auto got = drain();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], frame_of(1, 60));  // no FCS: stripped by the MAC
  for (std::uint32_t i = 0; i < 40; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(100 + i, 60 + i * 30)),
              DwmacModel::RxOutcome::kDelivered);
  }
  got = drain();
  ASSERT_EQ(got.size(), 40u);
  for (std::uint32_t i = 0; i < 40; ++i) EXPECT_EQ(got[i], frame_of(100 + i, 60 + i * 30));
  // docs/hardware/dwmac.md §5.6: the RX tail stays just past the last armed descriptor: 41 consumed
  // and re-armed = 255 + 41 slots, modulo the ring.
  const std::uint32_t rx_base = reg(reg::kDmaCh0RxDescListAddress);
  EXPECT_EQ(reg(reg::kDmaCh0RxDescTailPointer), rx_base + (255 + 41) % 256 * 16);

  auto one = frame_of(7, 1514);
  std::span<const std::byte> single[] = {one};
  ASSERT_EQ(*driver_.transmit(single), 1u);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0], one);
  std::vector<std::vector<std::byte>> out;
  for (std::uint32_t i = 0; i < 50; ++i) out.push_back(frame_of(200 + i, 42 + i * 29));
  std::vector<std::span<const std::byte>> spans(out.begin(), out.end());
  const auto tail_writes = model_->counters().tail_writes_tx;
  ASSERT_EQ(*driver_.transmit(spans), 50u);
  EXPECT_EQ(model_->counters().tail_writes_tx, tail_writes + 1);  // one tail write per burst
  ASSERT_EQ(sent_.size(), 51u);
  for (std::uint32_t i = 0; i < 50; ++i) EXPECT_EQ(sent_[1 + i], out[i]);
  EXPECT_EQ(reg(reg::kDmaCh0TxDescTailPointer), reg(reg::kDmaCh0TxDescListAddress) + 51 * 16);
  EXPECT_EQ(model_->tx_current_descriptor(), reg(reg::kDmaCh0TxDescListAddress) + 51 * 16);
  const auto& s = driver_.stats();
  EXPECT_EQ(s.rx_frames, 41u);
  EXPECT_EQ(s.tx_frames, 51u);
  EXPECT_EQ(s.rx_drops + s.rx_errors + s.tx_errors, 0u);
}

// 100,000 frames each way through 256-entry rings (~390 wraps), payloads
// compared byte for byte.
TEST_F(DwmacTest, HundredThousandFramesAcrossManyRingWraps) {
  ASSERT_TRUE(start().ok());
  constexpr std::uint32_t kFrames = 100'000, kBurst = 50;
  std::uint32_t delivered = 0, received = 0, transmitted = 0;
  std::vector<std::vector<std::byte>> out(kBurst);
  std::vector<std::span<const std::byte>> spans(kBurst);
  while (received < kFrames) {
    for (std::uint32_t i = 0; i < kBurst; ++i, ++delivered) {
      ASSERT_EQ(model_->receive_from_wire(frame_of(delivered, 60 + delivered % 1455)),
                DwmacModel::RxOutcome::kDelivered)
          << delivered;
    }
    for (auto& f : drain()) {
      ASSERT_EQ(f, frame_of(received, 60 + received % 1455)) << received;
      ++received;
    }
    for (std::uint32_t i = 0; i < kBurst; ++i) {
      out[i] = frame_of(transmitted + i + 1'000'000, 42 + (transmitted + i) % 1473);
      spans[i] = out[i];
    }
    auto sent = driver_.transmit(spans);
    ASSERT_TRUE(sent.ok());
    ASSERT_EQ(*sent, kBurst);
    for (std::uint32_t i = 0; i < kBurst; ++i) {
      ASSERT_EQ(sent_[transmitted + i], out[i]) << transmitted + i;
    }
    transmitted += kBurst;
  }
  EXPECT_EQ(received, kFrames);
  EXPECT_EQ(sent_.size(), kFrames);
  EXPECT_EQ(driver_.stats().rx_frames, kFrames);
  EXPECT_EQ(driver_.stats().tx_frames, kFrames);
  EXPECT_EQ(driver_.stats().rx_drops, 0u);
  // Completions reclaimed lazily: all but the last burst by now.
  EXPECT_GE(driver_.driver_stats().tx_completions, kFrames - kBurst);
  EXPECT_GT(model_->counters().rx_descriptors, 390u * 256);
  // Draining with RIE off: the line never went up.
  EXPECT_EQ(line_raised_, 0);
}

// The stack holds every buffer: the RX DMA runs out of descriptors (RBU),
// the frame waits in the MTL FIFO, and releasing delivers it.
TEST_F(DwmacTest, RxBufferUnavailableRecoversOnRelease) {
  ASSERT_TRUE(start().ok());
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 100)), DwmacModel::RxOutcome::kDelivered);
  }
  std::vector<hal::RxFrame> held(300);
  ASSERT_EQ(driver_.receive(held), 255u);
  held.resize(255);
  ASSERT_EQ(model_->receive_from_wire(frame_of(999, 100)), DwmacModel::RxOutcome::kQueued);
  EXPECT_EQ(model_->rx_state(), DwmacModel::DmaState::kSuspended);
  // The 2 KiB FIFO fills up: the MTL drops (MISS_FRAME_CNT).
  int missed = 0;
  for (int i = 0; i < 40; ++i) {
    if (model_->receive_from_wire(frame_of(2000, 100)) == DwmacModel::RxOutcome::kDroppedFifoFull) {
      ++missed;
    }
  }
  ASSERT_GT(missed, 0);
  const int queued = 40 - missed;
  hal::RxFrame none[4];
  EXPECT_EQ(driver_.receive(none), 0u);
  EXPECT_EQ(held[17].data.size(), 100u);
  EXPECT_EQ(std::vector<std::byte>(held[17].data.begin(), held[17].data.end()), frame_of(17, 100));
  // One buffer back, plus the pool's spare (256 buffers, 255 slots): two
  // queued frames land.
  ASSERT_TRUE(driver_.release(held[17].handle).ok());
  EXPECT_EQ(model_->rx_fifo_frames(), static_cast<std::size_t>(1 + queued - 2));
  ASSERT_TRUE(wait().ok());  // acknowledges RI and the RBU before it
  hal::RxFrame got[1];
  ASSERT_EQ(driver_.receive(got), 1u);
  EXPECT_EQ(std::vector<std::byte>(got[0].data.begin(), got[0].data.end()), frame_of(999, 100));
  EXPECT_EQ(driver_.driver_stats().rx_missed_frames, static_cast<std::uint64_t>(missed));
  EXPECT_EQ(driver_.stats().rx_drops, static_cast<std::uint64_t>(missed));
  EXPECT_FALSE(driver_.release(hal::RxHandle{5000}).ok());
  std::vector<hal::RxHandle> handles;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (i != 17) handles.push_back(held[i].handle);
  }
  handles.push_back(got[0].handle);
  ASSERT_TRUE(driver_.release(handles).ok());
  // The frames the FIFO still held come in now.
  EXPECT_EQ(model_->rx_fifo_frames(), 0u);
  EXPECT_EQ(drain().size(), static_cast<std::size_t>(queued));
  EXPECT_FALSE(driver_.release(handles[3]).ok());  // already given back
  EXPECT_GE(driver_.driver_stats().rx_buffer_unavailable, 1u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
}

// CRC and other error frames (forwarded by FEP) are dropped, counted, and
// their buffers re-queued: a ring's worth of good frames still fits after.
TEST_F(DwmacTest, ErrorFramesAreDroppedAndTheirBuffersRequeued) {
  ASSERT_TRUE(start().ok());
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 80), {.crc_error = true}),
              DwmacModel::RxOutcome::kDelivered);
    if (i % 100 == 0) {
      ASSERT_EQ(model_->receive_from_wire(frame_of(i, 80), {.receive_error = true}),
                DwmacModel::RxOutcome::kDelivered);
    }
    EXPECT_TRUE(drain().empty());
  }
  const auto& d = driver_.driver_stats();
  EXPECT_EQ(d.rx_crc_errors, 300u);
  EXPECT_EQ(d.rx_error_frames, 303u);
  EXPECT_EQ(driver_.stats().rx_drops, 303u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  auto got = drain();
  ASSERT_EQ(got.size(), 255u);
  EXPECT_EQ(got[254], frame_of(254, 64));
}

// A frame longer than one 2 KiB buffer spans descriptors: dropped whole,
// every buffer re-queued, the next frame fine.
TEST_F(DwmacTest, FramesSpanningDescriptorsAreDropped) {
  DwmacModel::Options options = jh7110();
  options.fifo_size_field = 6;  // 8 KiB FIFO, so the MTL can hold it
  ASSERT_TRUE(start(options).ok());
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 5000)), DwmacModel::RxOutcome::kDelivered);
  ASSERT_EQ(model_->receive_from_wire(frame_of(2, 70)), DwmacModel::RxOutcome::kDelivered);
  auto got = drain();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], frame_of(2, 70));
  EXPECT_EQ(driver_.driver_stats().rx_spanning_frames, 1u);
  EXPECT_EQ(driver_.stats().rx_drops, 1u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
}

// A stalled transmitter: 255 frames fill the ring (one slot kept empty),
// then kBusy (counted); wait_for_work() sleeps with TIE on and wakes when
// the DMA completes them; completions are reclaimed.
TEST_F(DwmacTest, FullTxRingIsBusyUntilCompletionsAreReclaimed) {
  ASSERT_TRUE(start().ok());
  model_->set_tx_stall(true);
  auto f = frame_of(1, 60);
  std::vector<std::span<const std::byte>> spans(300, std::span<const std::byte>(f));
  auto sent = driver_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 255u);
  auto busy = driver_.transmit(spans);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error(), Error::kBusy);
  const hal::TxFragment frag[] = {f};
  EXPECT_EQ(driver_.transmit_gather(frag).error(), Error::kBusy);
  EXPECT_EQ(driver_.stats().tx_busy, 2u);

  auto scenario = [&]() -> async::Task<void> {
    auto waiting = driver_.wait_for_work();
    co_return co_await waiting;
  };
  // The stall ends while the driver sleeps: TI raises the line.
  (void)executor_.spawn([&]() -> async::Task<void> {
    co_await async::sleep_for(async::kMillisecond);  // the driver is asleep by then
    model_->set_tx_stall(false);
    co_return {};
  }());
  ASSERT_TRUE(executor_.block_on(scenario()).ok());
  EXPECT_EQ(sent_.size(), 255u);
  EXPECT_GE(line_raised_, 1);
  EXPECT_EQ(reg(reg::kDmaCh0InterruptEnable) & (reg::dma_status::kTi | reg::dma_status::kRi), 0u);
  sent = driver_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 255u);
  EXPECT_GE(driver_.driver_stats().tx_completions, 255u);
}

// While the stack drains, RIE is off (no interrupt per frame); before
// sleeping the driver turns it on and the next frame raises the line.
TEST_F(DwmacTest, RxInterruptOnlyWhileSleeping) {
  ASSERT_TRUE(start().ok());
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 60)), DwmacModel::RxOutcome::kDelivered);
  EXPECT_EQ(line_raised_, 0);
  ASSERT_TRUE(wait().ok());  // a frame is there: returns at once
  EXPECT_EQ(drain().size(), 1u);
  (void)executor_.spawn([&]() -> async::Task<void> {
    co_await async::sleep_for(async::kMillisecond);  // the driver is asleep by then
    EXPECT_NE(reg(reg::kDmaCh0InterruptEnable) & reg::dma_status::kRi, 0u);  // sleeping
    EXPECT_EQ(model_->receive_from_wire(frame_of(2, 60)), DwmacModel::RxOutcome::kDelivered);
    co_return {};
  }());
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(line_raised_, 1);
  EXPECT_EQ(driver_.stats().interrupts, 1u);
  EXPECT_EQ(reg(reg::kDmaCh0InterruptEnable) & reg::dma_status::kRi, 0u);
  EXPECT_FALSE(model_->interrupt_line());  // status acknowledged
  EXPECT_EQ(drain().size(), 1u);
}

// The MMC statistics counters' interrupts (docs/hardware/dwmac.md §2.4):
// enabled at reset and not gated by MAC_INTERRUPT_ENABLE, so a counter
// passing half scale would hold the line high for good (the driver never
// reads the counters). Here the counters start just below half scale (a
// preset through MMC_CONTROL, standing in for ~2 GiB of traffic); after a
// frame each way they have crossed it, and the line must be low.
TEST_F(DwmacTest, MmcCounterInterruptsAreMasked) {
  ASSERT_TRUE(start().ok());
  for (std::uint32_t offset :
       {reg::kMmcRxInterruptMask, reg::kMmcTxInterruptMask, reg::kMmcIpcRxInterruptMask}) {
    EXPECT_EQ(reg(offset), reg::kMmcMaskAll) << std::hex << offset;
  }
  constexpr std::uint32_t kMmcControl = 0x700, kCntprst = 1u << 4;  // a test's own poke
  model_->write32(kMmcControl, kCntprst);
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 60)), DwmacModel::RxOutcome::kDelivered);
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(drain().size(), 1u);
  auto one = frame_of(2, 60);
  std::span<const std::byte> single[] = {one};
  ASSERT_EQ(*driver_.transmit(single), 1u);
  EXPECT_EQ(model_->counters().mmc_interrupts, 2u);  // octets crossed half scale each way
  EXPECT_FALSE(model_->interrupt_line());
  EXPECT_EQ(reg(reg::kMacInterruptStatus), 0u);
}

// The Star64 way: macirq through the PLIC (source 7) and irq::'s one-shot
// dispatch; wait_for_work() unmasks the source before sleeping.
TEST_F(DwmacTest, InterruptThroughThePlic) {
  plic_.init();
  irq::init(plic_);
  ASSERT_TRUE(start(jh7110(), {}, 1'000'000'000, 7).ok());
  (void)executor_.spawn([&]() -> async::Task<void> {
    co_await async::sleep_for(async::kMillisecond);
    EXPECT_EQ(model_->receive_from_wire(frame_of(2, 60)), DwmacModel::RxOutcome::kDelivered);
    co_return {};
  }());
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(irq::delivered_count(7), 1u);
  EXPECT_EQ(driver_.stats().interrupts, 1u);
  EXPECT_EQ(drain().size(), 1u);
  irq::detach(7);
}

// The frame reaches the model's wire once the task waiting for it sleeps.
// Parameters, not lambda captures: the coroutine outlives the statement.
async::Task<void> deliver_after_a_millisecond(DwmacModel& model, std::vector<std::byte> frame) {
  co_await async::sleep_for(async::kMillisecond);
  EXPECT_EQ(model.receive_from_wire(frame), DwmacModel::RxOutcome::kDelivered);
  co_return {};
}

// What a frame's wake-up costs in register accesses (each an uncached
// round trip on the U74), through the PLIC as on the Star64: a frame in while
// the task sleeps, its echo out. One read per frame, DMA_CH0_STATUS in the
// handler (the missed-frame counter only on RBU or at the link poll); the
// writes: the handler's write-1-to-clear, the pre-arm clear and enable, the
// disarm, the RX and TX tail pointers.
TEST_F(DwmacTest, WakeUpRegisterAccessesPerFrame) {
  plic_.init();
  irq::init(plic_);
  ASSERT_TRUE(start(jh7110(), {}, 1'000'000'000, 7).ok());
  bus_.reads.clear();
  bus_.writes.clear();
  constexpr int kFrames = 20;
  for (int i = 0; i < kFrames; ++i) {
    (void)executor_.spawn(deliver_after_a_millisecond(*model_, frame_of(i, 60)));
    ASSERT_TRUE(wait().ok());
    auto got = drain();
    ASSERT_EQ(got.size(), 1u) << i;
    std::span<const std::byte> reply[] = {got[0]};
    ASSERT_EQ(*driver_.transmit(reply), 1u);
  }
  std::string by_register;
  for (const auto& [offset, count] : bus_.reads) {
    by_register += " read " + std::to_string(offset) + " x" + std::to_string(count);
  }
  for (const auto& [offset, count] : bus_.writes) {
    by_register += " write " + std::to_string(offset) + " x" + std::to_string(count);
  }
  std::printf("register accesses per frame: %.2f reads, %.2f writes (%s)\n",
              static_cast<double>(testing::CountingBus::total(bus_.reads)) / kFrames,
              static_cast<double>(testing::CountingBus::total(bus_.writes)) / kFrames,
              by_register.c_str());
  EXPECT_EQ(bus_.reads[reg::kDmaCh0Status], std::uint64_t{kFrames}) << by_register;
  EXPECT_EQ(bus_.reads[reg::kDmaCh0MissFrameCount], 0u) << by_register;
  EXPECT_EQ(testing::CountingBus::total(bus_.reads), std::uint64_t{kFrames}) << by_register;
  EXPECT_LE(testing::CountingBus::total(bus_.writes), std::uint64_t{6 * kFrames}) << by_register;
  irq::detach(7);
}

// Link down and up at another speed: MAC_CONFIGURATION follows (docs/hardware/dwmac.md §6.2);
// wait_for_work() notices within its 500 ms poll with nothing else going on.
TEST_F(DwmacTest, LinkDownAndUpReprogramsTheMac) {
  ASSERT_TRUE(start().ok());
  ASSERT_EQ(driver_.link(), hal::LinkState::kUp);
  model_->phy().set_link(false);
  ASSERT_TRUE(wait().ok());  // wakes by itself on the link poll
  EXPECT_EQ(driver_.link(), hal::LinkState::kDown);
  model_->phy().set_link(true, PhyModel::Speed::k10, false);
  for (int i = 0; i < 10 && driver_.link() == hal::LinkState::kDown; ++i) {
    ASSERT_TRUE(driver_.poll_link().ok());
  }
  EXPECT_EQ(driver_.link(), hal::LinkState::kUp);
  EXPECT_EQ(reg(reg::kMacConfiguration) & reg::mac_config::kSpeedMask, reg::mac_config::kPs);
  model_->phy().set_link(true, PhyModel::Speed::k100, true);  // a drop and back: latched low
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(driver_.poll_link().ok());
  EXPECT_EQ(reg(reg::kMacConfiguration) & reg::mac_config::kSpeedMask,
            reg::mac_config::kPs | reg::mac_config::kFes | reg::mac_config::kDm);
  EXPECT_GE(driver_.driver_stats().link_changes, 3u);
  // Frames still flow at the new speed.
  ASSERT_EQ(model_->receive_from_wire(frame_of(3, 60)), DwmacModel::RxOutcome::kDelivered);
  EXPECT_EQ(drain().size(), 1u);
}

// A fatal bus error on TX with frames accepted but not sent: reset and
// re-init, and every accepted frame goes out, in order. An RX buffer the
// stack held across the reset keeps its bytes and can be released.
TEST_F(DwmacTest, FatalBusErrorRecoveryLosesNoAcceptedFrame) {
  ASSERT_TRUE(start().ok());
  ASSERT_EQ(model_->receive_from_wire(frame_of(5, 90)), DwmacModel::RxOutcome::kDelivered);
  hal::RxFrame held[1];
  ASSERT_EQ(driver_.receive(held), 1u);

  // Some frames complete, then the DMA stalls with more accepted, then dies.
  std::vector<std::vector<std::byte>> out;
  for (std::uint32_t i = 0; i < 300; ++i) out.push_back(frame_of(i, 60 + i));
  std::vector<std::span<const std::byte>> spans(out.begin(), out.end());
  ASSERT_EQ(*driver_.transmit(std::span(spans).first(200)), 200u);  // wraps the ring later
  model_->set_tx_stall(true);
  ASSERT_EQ(*driver_.transmit(std::span(spans).subspan(200, 100)), 100u);
  model_->inject_fatal_bus_error(DwmacModel::Channel::kTx);
  model_->set_tx_stall(false);  // the next descriptor fetch fails: FBE
  ASSERT_EQ(sent_.size(), 200u);
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(driver_.driver_stats().fatal_bus_errors, 1u);
  EXPECT_EQ(driver_.driver_stats().recoveries, 1u);
  EXPECT_EQ(driver_.stats().resets, 1u);
  ASSERT_EQ(sent_.size(), 300u);
  for (std::uint32_t i = 0; i < 300; ++i) ASSERT_EQ(sent_[i], out[i]) << i;

  EXPECT_EQ(std::vector<std::byte>(held[0].data.begin(), held[0].data.end()), frame_of(5, 90));
  ASSERT_TRUE(driver_.release(held[0].handle).ok());
  // RX works after the reset, the full ring's worth.
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
  ASSERT_EQ(*driver_.transmit(std::span(spans).first(10)), 10u);
  EXPECT_EQ(sent_.size(), 310u);
}

// A fatal bus error on RX with frames written back but not yet received:
// they survive the reset and come first, in order; the ring then carries a
// full ring's worth again (and wraps with the kept slots at its end).
TEST_F(DwmacTest, FatalBusErrorOnRxKeepsReceivedFrames) {
  ASSERT_TRUE(start().ok());
  for (std::uint32_t i = 0; i < 100; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 60)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 100u);  // the ring is now 100 slots along
  for (std::uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(500 + i, 70)), DwmacModel::RxOutcome::kDelivered);
  }
  const auto raised = line_raised_;
  model_->inject_fatal_bus_error(DwmacModel::Channel::kRx);
  (void)model_->receive_from_wire(frame_of(999, 60));  // lost with the DMA
  // FBEE is always on: the line went up (and the handler, which the rig
  // runs at once, acknowledged the flags it found).
  EXPECT_GT(line_raised_, raised);
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(driver_.driver_stats().recoveries, 1u);
  auto got = drain();
  ASSERT_EQ(got.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(got[i], frame_of(500 + i, 70));
  for (std::uint32_t round = 0; round < 3; ++round) {
    for (std::uint32_t i = 0; i < 255; ++i) {
      ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64 + round)),
                DwmacModel::RxOutcome::kDelivered);
    }
    got = drain();
    ASSERT_EQ(got.size(), 255u);
    for (std::uint32_t i = 0; i < 255; ++i) ASSERT_EQ(got[i], frame_of(i, 64 + round));
  }
}

// init() again (a board re-probing): memory is reused, armed RX buffers
// return to the pool, a held one stays valid, unsent TX frames are counted
// as dropped, and traffic flows.
TEST_F(DwmacTest, SecondInitReusesTheMemory) {
  ASSERT_TRUE(start().ok());
  ASSERT_EQ(model_->receive_from_wire(frame_of(1, 60)), DwmacModel::RxOutcome::kDelivered);
  hal::RxFrame held[1];
  ASSERT_EQ(driver_.receive(held), 1u);
  model_->set_tx_stall(true);
  auto f = frame_of(2, 60);
  std::span<const std::byte> spans[] = {f, f, f};
  ASSERT_EQ(*driver_.transmit(spans), 3u);
  const auto free_pages = pages_.stats().free_pages;
  ASSERT_TRUE(driver_
                  .init({.base = 0x1603'0000,
                         .model = model_.get(),
                         .mac = kMac,
                         .params = {},
                         .link_wait_ns = 1'000'000'000},
                        pages_)
                  .ok());
  EXPECT_EQ(pages_.stats().free_pages, free_pages);
  EXPECT_EQ(driver_.stats().tx_drops, 3u);
  EXPECT_EQ(std::vector<std::byte>(held[0].data.begin(), held[0].data.end()), frame_of(1, 60));
  ASSERT_TRUE(driver_.release(held[0].handle).ok());
  model_->set_tx_stall(false);
  EXPECT_TRUE(sent_.empty());  // the reset forgot them
  ASSERT_EQ(*driver_.transmit(spans), 3u);
  EXPECT_EQ(sent_.size(), 3u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
}

// IPv4/UDP with zero checksums: CIC = 11 makes the MAC (model) insert both;
// a received frame with a bad UDP checksum is counted (IPC) and delivered.
TEST_F(DwmacTest, ChecksumOffload) {
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  const auto f = udp_frame();
  std::span<const std::byte> one[] = {f};
  ASSERT_EQ(*driver_.transmit(one), 1u);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(model_->counters().tx_checksums_inserted, 1u);
  const auto& s = sent_[0];
  EXPECT_NE(s[24] | s[25], std::byte{0});  // IPv4 header checksum
  EXPECT_NE(s[40] | s[41], std::byte{0});  // UDP checksum

  auto good = s;  // what the model sent carries correct checksums
  ASSERT_EQ(model_->receive_from_wire(good), DwmacModel::RxOutcome::kDelivered);
  auto bad = s;
  bad[50] ^= std::byte{0xFF};  // payload corrupted: UDP checksum wrong
  ASSERT_EQ(model_->receive_from_wire(bad), DwmacModel::RxOutcome::kDelivered);
  auto got = drain();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], bad);
  EXPECT_EQ(driver_.driver_stats().rx_checksum_errors, 1u);
  EXPECT_NE(reg(reg::kMacConfiguration) & reg::mac_config::kIpc, 0u);
}

// IPv4 fragments: the engine inserts the IP header checksum only (CIC = 01).
// A first fragment keeps the UDP checksum the stack gave it (0 here), a
// later one its payload bytes where a UDP checksum would sit; with CIC = 11
// both would be overwritten by a sum over the one frame.
TEST_F(DwmacTest, FragmentsGetTheirIpHeaderChecksumOnly) {
  ASSERT_TRUE(start().ok());
  auto first = udp_frame();
  first[20] = std::byte{0x20};  // MF, offset 0
  auto later = udp_frame();
  later[20] = std::byte{0x00};
  later[21] = std::byte{0xB9};  // offset 185 x 8, the last fragment
  later[40] = std::byte{0x5A};  // payload bytes at the UDP checksum's place
  later[41] = std::byte{0xA5};
  for (const auto& f : {first, later}) {
    std::span<const std::byte> one[] = {f};
    ASSERT_EQ(*driver_.transmit(one), 1u);
  }
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_NE(sent_[0][24] | sent_[0][25], std::byte{0});  // IPv4 header checksum
  EXPECT_EQ(sent_[0][40] | sent_[0][41], std::byte{0});  // the UDP checksum left alone
  EXPECT_NE(sent_[1][24] | sent_[1][25], std::byte{0});
  EXPECT_EQ(sent_[1][40], std::byte{0x5A});  // payload untouched
  EXPECT_EQ(sent_[1][41], std::byte{0xA5});
  // An unfragmented datagram still gets everything.
  const auto whole = udp_frame();
  std::span<const std::byte> one[] = {whole};
  ASSERT_EQ(*driver_.transmit(one), 1u);
  ASSERT_EQ(sent_.size(), 3u);
  EXPECT_NE(sent_[2][40] | sent_[2][41], std::byte{0});
}

// ---- DMA mode (docs/hardware/dwmac.md §10) ----

// TTC / RTC encodings: exact counts, and counts between two rounded up.
static_assert(reg::mtl_txq::ttc(32) == 0u << 4 && reg::mtl_txq::ttc(64) == 1u << 4 &&
              reg::mtl_txq::ttc(96) == 2u << 4 && reg::mtl_txq::ttc(128) == 3u << 4 &&
              reg::mtl_txq::ttc(192) == 4u << 4 && reg::mtl_txq::ttc(256) == 5u << 4 &&
              reg::mtl_txq::ttc(384) == 6u << 4 && reg::mtl_txq::ttc(512) == 7u << 4 &&
              reg::mtl_txq::ttc(100) == 3u << 4 && reg::mtl_txq::ttc(4096) == 7u << 4);
static_assert(reg::mtl_rxq::rtc(32) == 1 && reg::mtl_rxq::rtc(64) == 0 &&
              reg::mtl_rxq::rtc(96) == 2 && reg::mtl_rxq::rtc(128) == 3 &&
              reg::mtl_rxq::rtc(65) == 2 && reg::mtl_rxq::rtc(1000) == 3);

constexpr Dwmac::BoardParams kThreshold{
    .dma_mode = Dwmac::DmaMode::kThreshold, .tx_threshold = 128, .rx_threshold = 32};

TEST_F(DwmacTest, StoreAndForwardProgramsTsfRsfAndOffersTxChecksums) {
  ASSERT_TRUE(start().ok());
  using namespace reg;
  EXPECT_NE(reg(kMtlTxq0OperationMode) & mtl_txq::kTsf, 0u);
  EXPECT_NE(reg(kMtlRxq0OperationMode) & mtl_rxq::kRsf, 0u);
  EXPECT_EQ(model_->tx_threshold(), 0u);
  EXPECT_EQ(model_->rx_threshold(), 0u);
  EXPECT_TRUE(driver_.tx_checksum_insertion());
  EXPECT_TRUE(driver_.rx_checksum_checking());
  EXPECT_EQ(driver_.enable_tx_checksum_offload(),
            (hal::TxChecksumOffload{.ipv4_header = true, .udp = true, .tcp = true, .icmp = true}));
}

TEST_F(DwmacTest, ThresholdModeProgramsTtcRtcAndOffersNoTxChecksums) {
  ASSERT_TRUE(start(jh7110(), kThreshold).ok());
  using namespace reg;
  const std::uint32_t txq = reg(kMtlTxq0OperationMode);
  const std::uint32_t rxq = reg(kMtlRxq0OperationMode);
  EXPECT_EQ(txq & mtl_txq::kTsf, 0u);
  EXPECT_EQ((txq >> 4) & 7, 3u);  // TTC 128 bytes
  EXPECT_EQ(rxq & mtl_rxq::kRsf, 0u);
  EXPECT_EQ(rxq & 3, 1u);  // RTC 32 bytes
  EXPECT_NE(rxq & mtl_rxq::kFep, 0u);
  EXPECT_EQ((txq >> 16) & 0x1FF, 7u);  // the queue sizes as before
  EXPECT_EQ((rxq >> 20) & 0x3FF, 7u);
  EXPECT_EQ(model_->tx_threshold(), 128u);
  EXPECT_EQ(model_->rx_threshold(), 32u);
  // The core has TX COE, but threshold mode cannot use it: nothing offered,
  // CIC left 00 (the model counts a CIC it had to ignore: none).
  EXPECT_FALSE(driver_.tx_checksum_insertion());
  EXPECT_EQ(driver_.enable_tx_checksum_offload(), hal::TxChecksumOffload{});
  EXPECT_TRUE(driver_.rx_checksum_checking());
  EXPECT_NE(reg(kMacConfiguration) & mac_config::kIpc, 0u);
  const auto f = udp_frame();
  std::span<const std::byte> one[] = {f};
  ASSERT_EQ(*driver_.transmit(one), 1u);
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0], f);
  EXPECT_EQ(model_->counters().tx_checksums_inserted, 0u);
  EXPECT_EQ(model_->counters().tx_checksums_bypassed, 0u);
}

// Echo over the model in threshold mode with Linux's bursts: frames in,
// the same frames out (from the RX buffer and copied), RX checksums still
// vouched for.
TEST_F(DwmacTest, EchoInThresholdModeWithLinuxBursts) {
  Dwmac::BoardParams params = kThreshold;
  params.tx_threshold = params.rx_threshold = 64;
  params.tx_pbl = params.rx_pbl = 16;
  params.min_burst = 32;
  params.max_burst = 256;
  ASSERT_TRUE(start(jh7110(), params).ok());
  // FB | BLEN32..BLEN256, 4 requests each way.
  EXPECT_EQ(reg(reg::kDmaSysbusMode), 0x0303'00F1u);
  EXPECT_EQ((reg(reg::kDmaCh0TxControl) >> 16) & 0x3F, 16u);
  EXPECT_EQ((reg(reg::kDmaCh0RxControl) >> 16) & 0x3F, 16u);
  std::vector<std::byte> payload(200);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(i);
  const auto request =
      test_frames::udp_frame({.dst = kMac.bytes, .src = {0x02, 0, 0, 0, 0, 0}},
                             {.src = 0x0A000001, .dst = 0x0A000002, .id = 1, .checksum = true},
                             {.src_port = 0x1234, .dst_port = 7, .checksum = true}, payload);
  for (std::uint32_t round = 0; round < 300; ++round) {  // past a ring wrap
    ASSERT_EQ(model_->receive_from_wire(request), DwmacModel::RxOutcome::kDelivered) << round;
    hal::RxFrame got[1];
    ASSERT_EQ(driver_.receive(got), 1u) << round;
    EXPECT_TRUE(got[0].checksum_verified);
    ASSERT_EQ(got[0].data.size(), request.size());
    if (round % 2 == 0) {
      ASSERT_EQ(*driver_.transmit_in_place(got), 1u) << round;
    } else {
      std::span<const std::byte> one[] = {got[0].data};
      ASSERT_EQ(*driver_.transmit(one), 1u) << round;
    }
    ASSERT_TRUE(driver_.release(got[0].handle).ok()) << round;
  }
  ASSERT_EQ(sent_.size(), 300u);
  for (const auto& f : sent_) EXPECT_EQ(f, request);
  EXPECT_EQ(model_->counters().tx_checksums_bypassed, 0u);
  EXPECT_EQ(driver_.stats().rx_drops + driver_.stats().tx_drops, 0u);
}

TEST_F(DwmacTest, AxiParametersMakeTheSysbusValue) {
  // Linux's derived burst and limit fields from the current JH7110 tree
  // (15 in the DT = 16 requests), without its EN_LPI and EAME.
  ASSERT_TRUE(start(jh7110(), {.min_burst = 32, .max_burst = 256, .axi_outstanding = 16}).ok());
  EXPECT_EQ(reg(reg::kDmaSysbusMode), 0x0F0F'00F1u);
  static_assert(Dwmac::sysbus_mode({.fixed_burst = false, .max_burst = 4, .axi_outstanding = 1}) ==
                reg::sysbus::kBlen4);
  static_assert(Dwmac::sysbus_mode({.min_burst = 8, .max_burst = 64, .axi_outstanding = 5}) ==
                (reg::sysbus::kFb | reg::sysbus::kBlen8 | reg::sysbus::kBlen16 |
                 reg::sysbus::kBlen32 | reg::sysbus::kBlen64 | reg::sysbus::rd_osr_limit(4) |
                 reg::sysbus::wr_osr_limit(4)));
}

// transmit_in_place: TDES0 points into the RX buffer, the frame goes out
// as it was rewritten there, and a buffer released while the DMA still owns
// its TX descriptor is re-armed for RX only after the descriptor completes.
TEST_F(DwmacTest, InPlaceTransmitLendsTheRxBufferUntilItIsSent) {
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  for (std::uint32_t i = 0; i < 2; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 60 + i)), DwmacModel::RxOutcome::kDelivered);
  }
  hal::RxFrame held[2];
  ASSERT_EQ(driver_.receive(held), 2u);
  held[0].data[0] = std::byte{0xAA};  // rewritten in place, as a reflector does
  model_->set_tx_stall(true);
  ASSERT_EQ(*driver_.transmit_in_place(held), 2u);
  EXPECT_EQ(driver_.stats().tx_in_place, 2u);
  EXPECT_EQ(driver_.rx_loans(), 2u);
  const std::uint32_t tail = reg(reg::kDmaCh0RxDescTailPointer);
  const hal::RxHandle handles[] = {held[0].handle, held[1].handle};
  ASSERT_TRUE(driver_.release(handles).ok());
  EXPECT_EQ(reg(reg::kDmaCh0RxDescTailPointer), tail);  // not re-armed: the DMA may read them
  EXPECT_FALSE(driver_.release(held[0].handle).ok());   // released once already
  model_->set_tx_stall(false);
  ASSERT_EQ(sent_.size(), 2u);
  auto want = frame_of(0, 60);
  want[0] = std::byte{0xAA};
  EXPECT_EQ(sent_[0], want);
  EXPECT_EQ(sent_[1], frame_of(1, 61));
  (void)driver_.transmit(std::span<const std::span<const std::byte>>{});  // reclaims
  EXPECT_EQ(driver_.rx_loans(), 0u);
  const std::uint32_t rx_base = reg(reg::kDmaCh0RxDescListAddress);
  EXPECT_EQ(reg(reg::kDmaCh0RxDescTailPointer), rx_base + (255 + 2) % 256 * 16);  // both re-armed
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
}

// A fatal bus error with in-place frames still owned by the DMA: they move
// to the front of the ring with their loans and go out after the reset;
// the loans end when they complete.
TEST_F(DwmacTest, FatalBusErrorKeepsInPlaceFramesAndTheirLoans) {
  ASSERT_TRUE(start().ok());
  for (std::uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 80)), DwmacModel::RxOutcome::kDelivered);
  }
  hal::RxFrame held[3];
  ASSERT_EQ(driver_.receive(held), 3u);
  std::vector<std::vector<std::byte>> out;
  for (std::uint32_t i = 0; i < 100; ++i) out.push_back(frame_of(100 + i, 60));
  std::vector<std::span<const std::byte>> spans(out.begin(), out.end());
  ASSERT_EQ(*driver_.transmit(spans), 100u);  // the ring moves along first
  model_->set_tx_stall(true);
  ASSERT_EQ(*driver_.transmit_in_place(held), 3u);
  const hal::RxHandle handles[] = {held[0].handle, held[1].handle, held[2].handle};
  ASSERT_TRUE(driver_.release(handles).ok());
  model_->inject_fatal_bus_error(DwmacModel::Channel::kTx);
  model_->set_tx_stall(false);
  ASSERT_TRUE(wait().ok());
  EXPECT_EQ(driver_.driver_stats().recoveries, 1u);
  ASSERT_EQ(sent_.size(), 103u);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(sent_[100 + i], frame_of(i, 80));
  (void)driver_.transmit(std::span<const std::span<const std::byte>>{});
  EXPECT_EQ(driver_.rx_loans(), 0u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(model_->receive_from_wire(frame_of(i, 64)), DwmacModel::RxOutcome::kDelivered);
  }
  EXPECT_EQ(drain().size(), 255u);
}

}  // namespace
}  // namespace starling::dwmac

namespace starling::dwmac {
namespace {

// The link's life as Linux's stmmac lives it (phylink: mac_link_down clears
// TE and RE, mac_link_up writes the speed and then sets them): 1000 -> 100
// -> 10 -> 1000 with frames both ways at each speed, then the cable pulled
// under traffic and plugged back. The model counts every MAC_CONFIGURATION
// write that changes PS, FES or DM with TE or RE set, and damages the next
// frame each way: the driver that wrote the speed under running engines
// fails here.
TEST_F(DwmacTest, LinkChangesTurnTheEnginesOffBeforeTheSpeedChanges) {
  ASSERT_TRUE(start().ok());
  ASSERT_EQ(driver_.link(), hal::LinkState::kUp);
  using namespace reg;
  const auto relink = [&](PhyModel::Speed speed, bool full) {
    model_->phy().set_link(false);
    ASSERT_TRUE(driver_.poll_link().ok());
    ASSERT_EQ(driver_.link(), hal::LinkState::kDown);
    model_->phy().set_link(true, speed, full);
    for (int i = 0; i < 10 && driver_.link() == hal::LinkState::kDown; ++i) {
      ASSERT_TRUE(driver_.poll_link().ok());
    }
    ASSERT_EQ(driver_.link(), hal::LinkState::kUp);
  };
  expect_traffic_both_ways(1, 200);
  const std::uint32_t at_1000 = reg(kMacConfiguration);

  // Down: the engines off, the speed left as it was (not forced to 1000).
  model_->phy().set_link(false);
  ASSERT_TRUE(driver_.poll_link().ok());
  EXPECT_EQ(reg(kMacConfiguration) & (mac_config::kTe | mac_config::kRe), 0u);
  EXPECT_EQ(reg(kMacConfiguration) & mac_config::kSpeedMask, at_1000 & mac_config::kSpeedMask);
  model_->phy().set_link(true, PhyModel::Speed::k100, true);
  for (int i = 0; i < 10 && driver_.link() == hal::LinkState::kDown; ++i) {
    ASSERT_TRUE(driver_.poll_link().ok());
  }
  EXPECT_EQ(
      reg(kMacConfiguration) & (mac_config::kSpeedMask | mac_config::kTe | mac_config::kRe),
      mac_config::kPs | mac_config::kFes | mac_config::kDm | mac_config::kTe | mac_config::kRe);
  expect_traffic_both_ways(2, 200);
  relink(PhyModel::Speed::k10, false);
  EXPECT_EQ(reg(kMacConfiguration) & mac_config::kSpeedMask, mac_config::kPs);
  expect_traffic_both_ways(3, 200);
  relink(PhyModel::Speed::k1000, true);
  EXPECT_EQ(reg(kMacConfiguration) & mac_config::kSpeedMask, mac_config::kDm);
  expect_traffic_both_ways(4, 200);

  // Pulled under traffic: frames accepted while the link is down wait in
  // the MTL and leave once it is back; none is damaged.
  model_->phy().set_link(false);
  ASSERT_TRUE(driver_.poll_link().ok());
  const auto queued = frame_of(5, 300);
  std::span<const std::byte> one[] = {queued};
  const std::size_t sent_before = sent_.size();
  ASSERT_EQ(*driver_.transmit(one), 1u);
  EXPECT_EQ(sent_.size(), sent_before);
  model_->phy().set_link(true, PhyModel::Speed::k100, true);
  for (int i = 0; i < 10 && driver_.link() == hal::LinkState::kDown; ++i) {
    ASSERT_TRUE(driver_.poll_link().ok());
  }
  ASSERT_EQ(sent_.size(), sent_before + 1);
  EXPECT_EQ(sent_.back(), queued);
  expect_traffic_both_ways(6, 200);

  EXPECT_EQ(model_->counters().speed_changes_while_enabled, 0u);
  EXPECT_EQ(model_->counters().frames_damaged_by_speed_change, 0u);
  EXPECT_EQ(driver_.driver_stats().mac_stop_timeouts, 0u);
}

// The model's rule itself, as the driver above must never meet it: a
// speed change with the engines on damages the next frame each way.
TEST_F(DwmacTest, ASpeedChangeUnderRunningEnginesDamagesTheNextFrames) {
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  using namespace reg;
  const std::uint32_t config = reg(kMacConfiguration);
  ASSERT_NE(config & mac_config::kTe, 0u);
  model_->write32(kMacConfiguration,
                  (config & ~mac_config::kSpeedMask) | mac_config::kPs | mac_config::kDm);
  EXPECT_EQ(model_->counters().speed_changes_while_enabled, 1u);
  const auto f = frame_of(1, 100);
  std::span<const std::byte> one[] = {f};
  ASSERT_EQ(*driver_.transmit(one), 1u);
  EXPECT_TRUE(sent_.empty());  // cut on the wire
  ASSERT_EQ(model_->receive_from_wire(f), DwmacModel::RxOutcome::kDelivered);
  EXPECT_TRUE(drain().empty());  // a CRC error: counted and dropped
  EXPECT_EQ(driver_.driver_stats().rx_crc_errors, 1u);
  EXPECT_EQ(model_->counters().frames_damaged_by_speed_change, 2u);
}

// The first-power-on self-test: one frame out through the TX ring and
// back through the RX ring by MAC loopback, with both checksums inserted;
// nothing reaches the wire, the traffic counters stay at 0 and the next
// frames use the rings as if nothing had happened.
TEST_F(DwmacTest, SelfTestPassesThroughTheRealRingsAndLeavesNoTrace) {
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(start().ok());
  const std::string console = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(console.find("dwmac: self-test passed: a 128-byte frame through MAC loopback, TX "
                         "descriptor 0 and RX descriptor 0 written back, payload intact, IPv4 "
                         "and UDP checksums inserted (the RX engine agrees)\r\n"),
            std::string::npos)
      << console;
  EXPECT_EQ(driver_.self_test_result(), Dwmac::SelfTest::kPassed);
  EXPECT_EQ(driver_.stats().selftests_passed, 1u);
  EXPECT_EQ(driver_.stats().selftests_failed, 0u);
  EXPECT_EQ(driver_.stats().tx_frames, 0u);
  EXPECT_EQ(driver_.stats().rx_frames, 0u);
  EXPECT_EQ(model_->counters().tx_looped_back, 1u);
  EXPECT_EQ(model_->counters().tx_checksums_inserted, 1u);
  EXPECT_TRUE(sent_.empty());
  using namespace reg;
  EXPECT_EQ(reg(kMacConfiguration) & mac_config::kLm, 0u);
  // Traffic after it: both ways, in the next slots.
  expect_traffic_both_ways(7, 90);
  EXPECT_EQ(driver_.stats().tx_frames, 1u);
  EXPECT_EQ(driver_.stats().rx_frames, 1u);
}

TEST_F(DwmacTest, SelfTestCanBeTurnedOff) {
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(start(jh7110(), kNoSelfTest).ok());
  const std::string console = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(console.find("dwmac: self-test skipped (selftest=off)\r\n"), std::string::npos);
  EXPECT_EQ(driver_.self_test_result(), Dwmac::SelfTest::kNotRun);
  EXPECT_EQ(model_->counters().tx_looped_back, 0u);
}

// Each broken step of the data path makes the self-test say which step
// and what the hardware showed; the boot goes on and the port works
// afterwards (the core reset, the rings laid out afresh).
struct InjectedFault {
  DwmacModel::DmaFault fault;
  const char* line;  // what the console must show
};

class DwmacSelfTestFaultTest : public DwmacTest,
                               public ::testing::WithParamInterface<InjectedFault> {};

TEST_P(DwmacSelfTestFaultTest, ReportsWhatFailedAndCarriesOn) {
  prepare_ = [](DwmacModel& model) { model.inject_dma_fault(GetParam().fault); };
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(start().ok());
  const std::string console = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(console.find(GetParam().line), std::string::npos) << console;
  EXPECT_NE(console.find("; carrying on\r\n"), std::string::npos) << console;
  EXPECT_EQ(model_->counters().dma_faults_injected, 1u);
  EXPECT_EQ(driver_.self_test_result(), Dwmac::SelfTest::kFailed);
  EXPECT_EQ(driver_.stats().selftests_failed, 1u);
  EXPECT_EQ(driver_.stats().selftests_passed, 0u);
  EXPECT_EQ(driver_.stats().tx_drops, 0u);
  EXPECT_EQ(driver_.link(), hal::LinkState::kUp);
  // Nothing reached the wire; then the port works.
  EXPECT_TRUE(sent_.empty());
  expect_traffic_both_ways(9, 120);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, DwmacSelfTestFaultTest,
    ::testing::Values(
        InjectedFault{DwmacModel::DmaFault::kTxDescriptorStale,
                      "dwmac: self-test FAILED: TX descriptor 0 not written back in 10 ms (TDES3 "
                      "0xb0030080, DMA_CH0_STATUS 0x4, DMA_DEBUG_STATUS0 0x6300)"},
        InjectedFault{DwmacModel::DmaFault::kRxWritebackDropped,
                      "dwmac: self-test FAILED: RX descriptor 0 not written back in 10 ms (RDES3 "
                      "0xc1000000, DMA_CH0_STATUS 0x"},
        InjectedFault{DwmacModel::DmaFault::kRxBufferStale,
                      "dwmac: self-test FAILED: RX buffer 0: 123 of 128 bytes differ, the first "
                      "at byte 0 (sent 0x6c, received 0xee: never written)"}));

// starling.gmac=debug: the DMA set-up read back at init, and at the first
// TX timeout (frames in flight, none completed over a link poll) the DMA's
// state. A stalled transmitter is counted at each poll it stays stalled.
TEST_F(DwmacTest, DebugDumpsTheDmaSetupAndTheFirstTxTimeout) {
  Dwmac::BoardParams params;
  params.debug = true;
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(start(jh7110(), params).ok());
  std::string console = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(console.find("dwmac: debug: DMA read back: DMA_MODE 0x80000 DMA_SYSBUS_MODE 0x303000f "
                         "DMA_CH0_CONTROL 0x0 DMA_CH0_TX_CONTROL 0x200011"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("dwmac: debug: MAC read back: MAC_CONFIGURATION "), std::string::npos);

  console = stall_one_frame();
  EXPECT_GE(driver_.driver_stats().tx_timeouts, 1u);
  EXPECT_NE(console.find("dwmac: TX timeout: 1 frames in flight, none sent for 0.5 s\r\n"),
            std::string::npos)
      << console;
  EXPECT_NE(console.find("dwmac: debug: TX state: DMA_CH0_STATUS "), std::string::npos);
  EXPECT_NE(console.find("dwmac: debug: TX ring: next to clean 1, next to fill 2"),
            std::string::npos)
      << console;
  model_->set_tx_stall(false);
  ASSERT_EQ(sent_.size(), 1u);
}

// Without debug a stall is still counted and said, once, without the dump.
TEST_F(DwmacTest, TxTimeoutIsCountedWithoutDebug) {
  ASSERT_TRUE(start().ok());
  const std::string console = stall_one_frame();
  EXPECT_GE(driver_.driver_stats().tx_timeouts, 1u);
  EXPECT_NE(console.find("(starling.gmac=debug shows the DMA's state)"), std::string::npos)
      << console;
  EXPECT_EQ(console.find("debug: TX state"), std::string::npos);
}

}  // namespace
}  // namespace starling::dwmac
