// The model's two MTL modes (docs/hardware/dwmac.md §3.1, §7.1, §10.3):
// store-and-forward (TXQ0 TSF, RXQ0 RSF) and threshold (TTC, RTC). What
// differs: TX checksum insertion happens only with TSF, and with FEP clear
// an error frame is dropped only if its start has not gone on to the DMA
// (threshold mode, a frame longer than RTC). Traffic flows in both.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"
#include "kernel/test_frames/frames.h"

namespace starling::model {
namespace {

using testing::frame_to_us;
using testing::Rig;
namespace facts = testing::facts;
using Outcome = DwmacModel::RxOutcome;

// MTL_TXQ0_OPERATION_MODE: TXQEN 10 with TTC in 6:4 and TSF clear.
// MTL_RXQ0_OPERATION_MODE: RTC in 1:0 and RSF (bit 5) clear.
void threshold_mode(Rig& rig, std::uint32_t ttc, std::uint32_t rtc, bool fep = false) {
  rig.write(facts::kMtlTxq0OperationMode, (2u << 2) | (ttc << 4));
  rig.write(facts::kMtlRxq0OperationMode, rtc | (fep ? facts::kFep : 0u));
}

// IPv4/UDP to us, both checksums 0 (for the MAC to fill in) unless `right`.
std::vector<std::byte> udp_to_us(bool right) {
  std::vector<std::byte> payload(40);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(i * 3);
  return test_frames::udp_frame(
      {.dst = {0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b}, .src = {0x02, 0, 0, 0, 0, 1}},
      {.src = 0x0A000001, .dst = 0x0A000002, .id = 9, .checksum = right},
      {.src_port = 7, .dst_port = 1235, .checksum = right}, payload);
}

std::uint32_t sum(std::span<const std::byte> b) {
  return test_frames::ones_complement_sum(b, 0);
}

TEST(DwmacDmaMode, TheRigStartsInStoreAndForward) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  EXPECT_EQ(rig.mac().tx_threshold(), 0u);
  EXPECT_EQ(rig.mac().rx_threshold(), 0u);
}

// docs/hardware/dwmac.md §3.1: TTC 0-7 = 32, 64, 96, 128, 192, 256, 384,
// 512 bytes; RTC 0 = 64, 1 = 32, 2 = 96, 3 = 128 bytes.
TEST(DwmacDmaMode, ThresholdFieldsDecodeAsTheFactsSay) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  const std::uint32_t tx[8] = {32, 64, 96, 128, 192, 256, 384, 512};
  for (std::uint32_t code = 0; code < 8; ++code) {
    threshold_mode(rig, code, 0);
    EXPECT_EQ(rig.mac().tx_threshold(), tx[code]) << code;
    EXPECT_EQ((rig.read(facts::kMtlTxq0OperationMode) >> 4) & 7, code);
  }
  const std::uint32_t rx[4] = {64, 32, 96, 128};
  for (std::uint32_t code = 0; code < 4; ++code) {
    threshold_mode(rig, 0, code);
    EXPECT_EQ(rig.mac().rx_threshold(), rx[code]) << code;
  }
  // TSF / RSF win over the thresholds.
  rig.write(facts::kMtlTxq0OperationMode, facts::kTsf | (5u << 4));
  rig.write(facts::kMtlRxq0OperationMode, (1u << 5) | 3u);
  EXPECT_EQ(rig.mac().tx_threshold(), 0u);
  EXPECT_EQ(rig.mac().rx_threshold(), 0u);
}

// docs/hardware/dwmac.md §5.1: checksum insertion needs TSF. The same
// CIC = 11 frame: checksums inserted with store-and-forward, the frame sent
// as given (and counted) in threshold mode, never refused.
TEST(DwmacDmaMode, ChecksumsInsertedOnlyWithStoreAndForward) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  const auto frame = udp_to_us(false);
  rig.post_tx(0, frame, true, /*cic=*/3);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(sum(std::span<const std::byte>(rig.sent[0]).subspan(14, 20)), 0xFFFFu);
  EXPECT_NE(rig.sent[0], frame);
  EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 1u);
  EXPECT_EQ(rig.mac().counters().tx_checksums_bypassed, 0u);

  threshold_mode(rig, /*64 B*/ 1, /*64 B*/ 0);
  rig.post_tx(1, frame, true, /*cic=*/3);
  rig.tx_tail(2);
  ASSERT_EQ(rig.sent.size(), 2u);
  EXPECT_EQ(rig.sent[1], frame);  // both checksums still 0
  EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 1u);
  EXPECT_EQ(rig.mac().counters().tx_checksums_bypassed, 1u);
  EXPECT_EQ(rig.tx_desc(1)[3] & (facts::kOwn | facts::kEs), 0u);  // completed, no error
  // Without CIC nothing is counted.
  rig.post_tx(2, frame);
  rig.tx_tail(3);
  ASSERT_EQ(rig.sent.size(), 3u);
  EXPECT_EQ(rig.mac().counters().tx_checksums_bypassed, 1u);
}

// Databook, MTL_RXQ0_OPERATION_MODE.FEP: with FEP clear error packets are
// dropped, "however, if the start byte (write) pointer of a packet is
// already transferred to the read controller side (in Threshold mode), the
// packet is not dropped".
TEST(DwmacDmaMode, ThresholdModeForwardsErrorFramesLongerThanRtc) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  for (std::uint32_t i = 0; i < 4; ++i) rig.arm_rx(i);
  rig.rx_tail(4);
  // Store-and-forward, FEP clear: dropped whatever the length.
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(200), {.crc_error = true}),
            Outcome::kDroppedError);
  // Threshold mode with RTC = 1 (32 bytes), FEP clear.
  threshold_mode(rig, 0, /*32 B*/ 1);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(32), {.crc_error = true}),
            Outcome::kDroppedError);  // its end arrived before it could leave
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(33), {.crc_error = true}), Outcome::kDelivered);
  EXPECT_NE(rig.rx_desc(0)[3] & facts::kEs, 0u);
  EXPECT_NE(rig.rx_desc(0)[3] & facts::kCe, 0u);
  // RTC = 3 (128 bytes): a 100-byte error frame is dropped again.
  threshold_mode(rig, 0, /*128 B*/ 3);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(100), {.receive_error = true}),
            Outcome::kDroppedError);
  EXPECT_EQ(rig.mac().counters().rx_dropped_error, 3u);
  EXPECT_EQ(rig.mac().counters().rx_error_frames_cut_through, 1u);
  // Good frames go through in threshold mode like any other.
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(1)[3] & facts::kEs, 0u);
}

// An echo in threshold mode: a UDP frame in (RX checksum checking still
// reports it right), the same bytes out (no CIC: the driver in threshold
// mode asks for none).
TEST(DwmacDmaMode, EchoInThresholdMode) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  threshold_mode(rig, /*64 B*/ 1, /*64 B*/ 0, /*fep=*/true);
  rig.write(facts::kMacConfiguration,
            rig.read(facts::kMacConfiguration) | facts::kIpc | facts::kAcs | facts::kCst);
  rig.arm_rx(0);
  rig.rx_tail(1);
  const auto frame = udp_to_us(true);
  ASSERT_EQ(rig.mac().receive_from_wire(frame), Outcome::kDelivered);
  const std::uint32_t* d = rig.rx_desc(0);
  EXPECT_EQ(d[3] & (facts::kOwn | facts::kEs), 0u);
  EXPECT_EQ(d[3] & facts::kPlMask, frame.size());  // FCS stripped
  constexpr std::uint32_t kIpv4 = 1u << 4, kPtUdp = 1, kErrors = (1u << 3) | (1u << 7);
  EXPECT_NE(d[3] & facts::kRs1v, 0u);
  EXPECT_EQ(d[1] & (kIpv4 | 7u | kErrors), kIpv4 | kPtUdp);
  const std::span<const std::byte> got(rig.at(rig.rx_buffer(0)), d[3] & facts::kPlMask);
  rig.post_tx(0, got);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], frame);
}

}  // namespace
}  // namespace starling::model
