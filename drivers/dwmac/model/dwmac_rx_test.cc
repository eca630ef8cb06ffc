#include <cstring>

#include <gtest/gtest.h>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"
#include "kernel/test_frames/frames.h"

namespace starling::model {
namespace {

using testing::frame_to;
using testing::frame_to_us;
using testing::Rig;
namespace facts = testing::facts;
using Outcome = DwmacModel::RxOutcome;
using State = DwmacModel::DmaState;

std::uint32_t crc32(std::span<const std::byte> bytes) {
  std::uint32_t crc = 0xFFFF'FFFF;
  for (std::byte b : bytes) {
    crc ^= static_cast<std::uint8_t>(b);
    for (int i = 0; i < 8; ++i) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB8'8320u : crc >> 1;
  }
  return ~crc;
}

// Ready to receive: ring of 8, descriptors 0..n-1 armed, tail just past them.
void arm(Rig& rig, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) rig.arm_rx(i);
  rig.rx_tail(n);
}

// docs/hardware/dwmac.md §5.5 RX write-back: "RDES3 14:0 PL ... includes the 4-byte FCS
// unless ACS/CST stripping is on"; FD/LD; "RI rx complete" with IOC.
TEST(DwmacRx, DeliversAFrameWithItsFcsAndRaisesRi) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 4);
  const auto frame = frame_to_us(100);
  EXPECT_EQ(rig.mac().receive_from_wire(frame), Outcome::kDelivered);
  const std::uint32_t* d = rig.rx_desc(0);
  EXPECT_EQ(d[3] & facts::kOwn, 0u);
  EXPECT_EQ(d[3] & (facts::kFd | facts::kLd), facts::kFd | facts::kLd);
  EXPECT_EQ(d[3] & facts::kPlMask, 104u);
  EXPECT_EQ(d[3] & facts::kEs, 0u);
  EXPECT_EQ(std::memcmp(rig.at(rig.rx_buffer(0)), frame.data(), 100), 0);
  std::uint32_t fcs;
  std::memcpy(&fcs, rig.at(rig.rx_buffer(0) + 100), 4);
  EXPECT_EQ(fcs, crc32(frame));
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kRi, 0u);
  EXPECT_EQ(rig.mac().rx_current_descriptor(), rig.rx_desc_address(1));
  EXPECT_EQ(rig.read(facts::kCh0CurrentRxDesc), static_cast<std::uint32_t>(rig.rx_desc_address(1)));
}

// docs/hardware/dwmac.md §5.5 "RX write-back (DMA → driver; overwrites buffer addresses!)".
TEST(DwmacRx, WriteBackOverwritesTheBufferAddress) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 2);
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(64)), Outcome::kDelivered);
  EXPECT_NE(rig.rx_desc(0)[0], static_cast<std::uint32_t>(rig.rx_buffer(0)));
  EXPECT_EQ(rig.rx_desc(0)[0], 0u);
  EXPECT_EQ(rig.rx_desc(0)[2], 0u);
}

// docs/hardware/dwmac.md §2.1 MAC_CONFIGURATION "20 ACS strip pad/FCS on length frames; 21 CST
// strip FCS on type frames"; docs/hardware/dwmac.md §9 item 8 "PL includes FCS unless ACS/CST set".
TEST(DwmacRx, CstStripsTheFcsOfTypeFrames) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMacConfiguration, rig.read(facts::kMacConfiguration) | facts::kCst);
  arm(rig, 2);
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(100)), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kPlMask, 100u);
  // A length frame (EtherType < 0x600) needs ACS instead.
  auto length_frame = frame_to_us(100);
  length_frame[12] = std::byte{0x00};
  length_frame[13] = std::byte{0x56};
  ASSERT_EQ(rig.mac().receive_from_wire(length_frame), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(1)[3] & facts::kPlMask, 104u);
}

// docs/hardware/dwmac.md §4.1 "RBSZ 14:1 (field value = buffer bytes, i.e. write size<<1)";
// docs/hardware/dwmac.md §5.5 "Zephyr derives per-buffer length from PL differences"; PL valid on
// LD.
TEST(DwmacRx, LongFrameSpansBuffersFromFirstToLast) {
  Rig rig;
  ASSERT_TRUE(rig.init({.rx_buffer = 512}));
  arm(rig, 6);
  const auto frame = frame_to_us(1500);
  ASSERT_EQ(rig.mac().receive_from_wire(frame), Outcome::kDelivered);
  // 1504 bytes with FCS: 512 + 512 + 480.
  EXPECT_EQ(rig.rx_desc(0)[3] & (facts::kFd | facts::kLd | facts::kOwn), facts::kFd);
  EXPECT_EQ(rig.rx_desc(1)[3] & (facts::kFd | facts::kLd | facts::kOwn), 0u);
  EXPECT_EQ(rig.rx_desc(2)[3] & (facts::kFd | facts::kLd | facts::kOwn), facts::kLd);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kPlMask, 512u);
  EXPECT_EQ(rig.rx_desc(1)[3] & facts::kPlMask, 1024u);
  EXPECT_EQ(rig.rx_desc(2)[3] & facts::kPlMask, 1504u);
  EXPECT_EQ(rig.rx_desc(3)[3] & facts::kOwn, facts::kOwn);
  std::vector<std::byte> joined;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::byte* p = rig.at(rig.rx_buffer(i));
    joined.insert(joined.end(), p, p + (i < 2 ? 512 : 480));
  }
  joined.resize(1500);
  EXPECT_EQ(joined, frame);
  EXPECT_EQ(rig.mac().counters().rx_descriptors, 3u);
  EXPECT_EQ(rig.mac().rx_current_descriptor(), rig.rx_desc_address(3));
}

// docs/hardware/dwmac.md §4.1 RBSZ "must be a bus-width multiple, low bits ignored";
// docs/hardware/dwmac.md §9 item 7.
TEST(DwmacRx, BufferSizeLowBitsAreIgnored) {
  Rig rig;
  ASSERT_TRUE(rig.init({.rx_buffer = 100}));  // behaves as 96
  arm(rig, 4);
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(150)), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kPlMask, 96u);
  EXPECT_EQ(rig.rx_desc(1)[3] & facts::kPlMask, 154u);
}

// docs/hardware/dwmac.md §5.6 "RI ... at end of frame when IOC was set (R: IOC of the last
// descriptor used)".
TEST(DwmacRx, RiFollowsIocOfTheLastDescriptor) {
  Rig rig;
  ASSERT_TRUE(rig.init({.rx_buffer = 512}));
  rig.arm_rx(0, /*ioc=*/true);
  rig.arm_rx(1, /*ioc=*/false);
  rig.rx_tail(2);
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(600)), Outcome::kDelivered);
  EXPECT_EQ(rig.read(facts::kCh0Status) & facts::kRi, 0u);
}

// docs/hardware/dwmac.md §5.6 "Fetched descriptor with OWN=0 → RX: RBU, RX DMA suspended, frames
// wait in MTL FIFO"; "Resume: ... write the tail pointer".
TEST(DwmacRx, NoDescriptorSuspendsWithRbuAndFramesWaitUntilTheTailMoves) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  // Descriptors armed but the tail not moved: descriptor 0 is AT the tail.
  rig.arm_rx(0);
  rig.arm_rx(1);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60, 1)), Outcome::kQueued);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60, 2)), Outcome::kQueued);
  EXPECT_EQ(rig.mac().rx_state(), State::kSuspended);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kRbu, 0u);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kOwn, facts::kOwn);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 2u);
  EXPECT_EQ((rig.read(facts::kMtlRxq0Debug) >> 16) & 0x3FFF,
            2u);   // docs/hardware/dwmac.md §3.1 PRXQ
  rig.rx_tail(1);  // one descriptor: one frame drains, the other waits
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 1u);
  EXPECT_EQ(rig.mac().rx_state(), State::kSuspended);
  rig.rx_tail(2);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 0u);
  EXPECT_EQ(rig.mac().rx_state(), State::kRunning);
  EXPECT_EQ(std::memcmp(rig.at(rig.rx_buffer(1)), frame_to_us(60, 2).data(), 60), 0);
  EXPECT_EQ(rig.mac().counters().rx_delivered, 2u);
  EXPECT_EQ(rig.mac().counters().rx_queued, 2u);
}

TEST(DwmacRx, DescriptorNotOwnedSuspends) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  // Linux's initial RX tail = base + N·16; descriptor 0 complete but for OWN.
  rig.arm_rx(0);
  rig.rx_desc(0)[3] &= ~facts::kOwn;
  rig.rx_tail(8);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kQueued);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kRbu, 0u);
  EXPECT_EQ(rig.rx_desc(0)[0], static_cast<std::uint32_t>(rig.rx_buffer(0)));  // untouched
  EXPECT_EQ(rig.mac().rx_current_descriptor(), rig.rx_desc_address(0));
  rig.rx_desc(0)[3] |= facts::kOwn;
  rig.rx_tail(8);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 0u);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kOwn, 0u);
}

// docs/hardware/dwmac.md §4.1 "DMA_CH0_MISS_FRAME_CNT 10:0 MFC dropped packets"; FIFO 2 KiB
// (docs/hardware/dwmac.md §2.1 FEATURE1).
TEST(DwmacRx, FullFifoDropsAndCountsMissedFrames) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  // 2048-byte FIFO: two 1000-byte frames (1004 with FCS) fit, the third does not.
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(1000)), Outcome::kQueued);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(1000)), Outcome::kQueued);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(1000)), Outcome::kDroppedFifoFull);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedFifoFull);
  EXPECT_EQ((rig.read(facts::kMtlRxq0Debug) >> 4) & 3,
            3u);  // docs/hardware/dwmac.md §3.1 RXQSTS full
  EXPECT_EQ(rig.read(facts::kCh0MissFrameCount) & 0x7FF, 2u);
  EXPECT_EQ(rig.read(facts::kCh0MissFrameCount), 0u);  // clear on read (model's choice)
  EXPECT_EQ(rig.mac().counters().rx_dropped_fifo_full, 2u);
  arm(rig, 4);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 0u);
  EXPECT_EQ(rig.mac().counters().rx_delivered, 2u);
}

// docs/hardware/dwmac.md §4.1 MISS_FRAME_CNT "10:0 MFC; 15 MFCO overflow".
TEST(DwmacRx, MissedFrameCounterSaturatesWithOverflowBit) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(2040)), Outcome::kQueued);
  for (int i = 0; i < 2050; ++i)
    ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedFifoFull);
  const std::uint32_t miss = rig.mac().peek(facts::kCh0MissFrameCount);
  EXPECT_EQ(miss & 0x7FF, 0x7FFu);
  EXPECT_NE(miss & (1u << 15), 0u);
}

// docs/hardware/dwmac.md §4.1 "SR ... RPS rx process stopped"; SR again restarts from LIST_ADDRESS.
TEST(DwmacRx, ClearingSrStopsWithRpsAndFramesWait) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 4);
  rig.write(facts::kCh0RxControl, rig.read(facts::kCh0RxControl) & ~facts::kSr);
  EXPECT_EQ(rig.mac().rx_state(), State::kStopped);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kRps, 0u);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kQueued);
  rig.write(facts::kCh0RxControl, rig.read(facts::kCh0RxControl) | facts::kSr);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 0u);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kOwn, 0u);
}

// docs/hardware/dwmac.md §2.1 RXQ_CTRL0 "Queue 0 must be enabled or nothing is received (all
// drivers set 2)".
TEST(DwmacRx, NothingIsReceivedWithoutRxq0EnOrRe) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 4);
  rig.write(facts::kMacRxqCtrl0, 0);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedOff);
  rig.write(facts::kMacRxqCtrl0, 2);
  rig.write(facts::kMacConfiguration, facts::kTe);  // RE clear
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedOff);
  rig.write(facts::kMacConfiguration, facts::kTe | facts::kRe);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().counters().rx_dropped_off, 2u);
  rig.write(facts::kDmaMode, facts::kSwr);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedOff);
}

// docs/hardware/dwmac.md §2.1 MAC_PACKET_FILTER "0 PR promiscuous; 4 PM pass-all-multicast; 5 DBF".
TEST(DwmacRx, DestinationFilter) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 8);
  const auto other = testing::bytes({0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5c});
  const auto bcast = testing::bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
  const auto mcast = testing::bytes({0x01, 0x00, 0x5E, 0x00, 0x00, 0x01});
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(other, 60)), Outcome::kDroppedFiltered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(mcast, 60)), Outcome::kDroppedFiltered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(bcast, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDelivered);
  rig.write(facts::kMacPacketFilter, facts::kPm | facts::kDbf);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(mcast, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(bcast, 60)), Outcome::kDroppedFiltered);
  rig.write(facts::kMacPacketFilter, facts::kPr);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(other, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().counters().rx_dropped_filtered, 3u);
  // docs/hardware/dwmac.md §2.1 MAC_ADDRESS0 byte order: a different LOW byte 0 no longer matches.
  rig.write(facts::kMacPacketFilter, 0);
  rig.write(facts::kMacAddress0Low, facts::kOurMacLow ^ 0xFF);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDroppedFiltered);
}

// docs/hardware/dwmac.md §2.1 MAC_PACKET_FILTER "2 HMC" and MAC_HASH_TABLE_REG0/1:
// a group passes when its bin is set. Bins as Linux's stmmac computes them
// (bitrev32(~crc32_le(~0, addr, 6)) >> 26), worked out independently with
// Python's zlib.crc32: 33:33:00:00:00:01 -> 1, 33:33:00:00:00:18 -> 1,
// 33:33:ff:12:34:56 -> 61, 33:33:00:00:00:fb -> 17.
TEST(DwmacRx, MulticastHashFilter) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 8);
  const auto all_nodes = testing::bytes({0x33, 0x33, 0x00, 0x00, 0x00, 0x01});
  const auto same_bin = testing::bytes({0x33, 0x33, 0x00, 0x00, 0x00, 0x18});
  const auto solicited = testing::bytes({0x33, 0x33, 0xFF, 0x12, 0x34, 0x56});
  const auto mdns = testing::bytes({0x33, 0x33, 0x00, 0x00, 0x00, 0xFB});
  rig.write(facts::kMacHashTableReg0, 1u << 1);
  rig.write(facts::kMacHashTableReg1, 1u << (61 - 32));
  rig.write(facts::kMacPacketFilter, facts::kHmc);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(all_nodes, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(same_bin, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(solicited, 60)), Outcome::kDelivered);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(mdns, 60)), Outcome::kDroppedFiltered);
  // Without HMC (and without PM) no group passes, whatever the table holds.
  rig.write(facts::kMacPacketFilter, 0);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to(all_nodes, 60)), Outcome::kDroppedFiltered);
}

// docs/hardware/dwmac.md §5.5 RDES3 "15 ES ... 24 CE CRC; 20 RE; 21 OE; 23 GP"; "ES = OR of ...
// (R)"; docs/hardware/dwmac.md §3.1 MTL_RXQ0_OPERATION_MODE "4 FEP fwd error pkts".
TEST(DwmacRx, ErrorFramesDroppedUnlessFepThenFlagged) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 8);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60), {.crc_error = true}),
            Outcome::kDroppedError);
  EXPECT_EQ(rig.mac().counters().rx_dropped_error, 1u);
  rig.write(facts::kMtlRxq0OperationMode, rig.read(facts::kMtlRxq0OperationMode) | facts::kFep);
  const auto frame = frame_to_us(60);
  ASSERT_EQ(rig.mac().receive_from_wire(frame, {.crc_error = true}), Outcome::kDelivered);
  const std::uint32_t d3 = rig.rx_desc(0)[3];
  EXPECT_NE(d3 & facts::kEs, 0u);
  EXPECT_NE(d3 & facts::kCe, 0u);
  std::uint32_t fcs;
  std::memcpy(&fcs, rig.at(rig.rx_buffer(0) + 60), 4);
  EXPECT_NE(fcs, crc32(frame));
  struct Case {
    DwmacModel::RxFault fault;
    std::uint32_t bit;
  };
  const Case cases[] = {{{.receive_error = true}, 1u << 20},
                        {{.giant = true}, 1u << 23},
                        {{.overflow = true}, 1u << 21}};
  std::uint32_t slot = 1;
  for (const Case& c : cases) {
    ASSERT_EQ(rig.mac().receive_from_wire(frame, c.fault), Outcome::kDelivered);
    EXPECT_EQ(rig.rx_desc(slot)[3] & (c.bit | facts::kEs | facts::kCe), c.bit | facts::kEs);
    ++slot;
  }
  ASSERT_EQ(rig.mac().receive_from_wire(frame), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(slot)[3] & facts::kEs, 0u);
}

// ---- RX checksum offload (docs/hardware/dwmac.md §2.1 MAC_CONFIGURATION 27 IPC;
// docs/hardware/dwmac.md §5.5 RDES1)

// RFC 1071's sum, folded: 0xFFFF over a right checksum.
std::uint32_t sum(std::span<const std::byte> b, std::uint32_t acc = 0) {
  return test_frames::ones_complement_sum(b, acc);
}

// A correct IPv4/UDP frame to us: frame_to_us()'s addresses and payload bytes.
std::vector<std::byte> udp_frame(std::size_t payload) {
  std::vector<std::byte> f = frame_to_us(14 + 20 + 8 + payload);
  test_frames::write_udp_headers(f, {.src = 0x0A000002, .dst = 0x0A000001},
                                 {.src_port = 7, .dst_port = 9, .checksum = true});
  return f;
}

TEST(DwmacRxChecksum, ReportsIpv4UdpAndCatchesBadChecksums) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMacConfiguration, rig.read(facts::kMacConfiguration) | facts::kIpc);
  arm(rig, 4);
  constexpr std::uint32_t kIpv4 = 1u << 4, kIphe = 1u << 3, kIpce = 1u << 7, kPtUdp = 1;
  auto good = udp_frame(33);
  ASSERT_EQ(rig.mac().receive_from_wire(good), Outcome::kDelivered);
  EXPECT_NE(rig.rx_desc(0)[3] & facts::kRs1v, 0u);
  EXPECT_EQ(rig.rx_desc(0)[1], kIpv4 | kPtUdp);
  auto bad_payload = good;
  bad_payload.back() ^= std::byte{0x01};
  ASSERT_EQ(rig.mac().receive_from_wire(bad_payload), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(1)[1], kIpv4 | kPtUdp | kIpce);
  auto bad_header = good;
  bad_header[14 + 8] ^= std::byte{0x01};  // TTL
  ASSERT_EQ(rig.mac().receive_from_wire(bad_header), Outcome::kDelivered);
  EXPECT_NE(rig.rx_desc(2)[1] & kIphe, 0u);
  // Not IP: RDES1 not valid.
  ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(3)[3] & facts::kRs1v, 0u);
}

// docs/hardware/dwmac.md §5.5 RDES1 "5 IPV6", PT 2 = TCP.
TEST(DwmacRxChecksum, ReportsIpv6Tcp) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMacConfiguration, rig.read(facts::kMacConfiguration) | facts::kIpc);
  arm(rig, 2);
  constexpr std::size_t kTcp = 20 + 11;
  std::vector<std::byte> f = frame_to_us(14 + 40 + kTcp);
  f[12] = std::byte{0x86};
  f[13] = std::byte{0xDD};
  std::byte* ip = f.data() + 14;
  std::memset(ip, 0, 40 + kTcp);
  ip[0] = std::byte{0x60};
  ip[5] = static_cast<std::byte>(kTcp);
  ip[6] = std::byte{6};
  ip[7] = std::byte{64};
  ip[8 + 15] = std::byte{1};  // ::1 -> ::2
  ip[24 + 15] = std::byte{2};
  std::byte* tcp = ip + 40;
  tcp[12] = std::byte{0x50};
  for (std::size_t i = 20; i < kTcp; ++i) tcp[i] = static_cast<std::byte>(i);
  const std::uint32_t pseudo = sum({ip + 8, 32}) + 6 + static_cast<std::uint32_t>(kTcp);
  const std::uint16_t c = static_cast<std::uint16_t>(~sum({tcp, kTcp}, pseudo));
  tcp[16] = static_cast<std::byte>(c >> 8);
  tcp[17] = static_cast<std::byte>(c & 0xFF);
  ASSERT_EQ(rig.mac().receive_from_wire(f), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(0)[1], (1u << 5) | 2u);
  f.back() ^= std::byte{0x10};
  ASSERT_EQ(rig.mac().receive_from_wire(f), Outcome::kDelivered);
  EXPECT_EQ(rig.rx_desc(1)[1], (1u << 5) | 2u | (1u << 7));
}

// docs/hardware/dwmac.md §4.2 TEB/REB: "1 = write data buffer, 7 = read descriptor"; "FBE stops the
// DMA".
TEST(DwmacRx, BufferOutsideDmaMemoryIsAWriteBufferBusError) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 2);
  rig.rx_desc(0)[0] = 0x2000;
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kQueued);
  const std::uint32_t status = rig.read(facts::kCh0Status);
  EXPECT_NE(status & facts::kFbe, 0u);
  EXPECT_NE(status & facts::kRps, 0u);
  EXPECT_EQ((status >> 19) & 7, 1u);
  EXPECT_EQ(rig.mac().rx_state(), State::kStopped);
  rig.rx_tail(2);  // a kick does not restart a DMA stopped by FBE
  EXPECT_EQ(rig.mac().rx_state(), State::kStopped);
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 1u);
  ASSERT_TRUE(rig.init());  // SWR drops the FIFO and recovers
  EXPECT_EQ(rig.mac().rx_fifo_frames(), 0u);
  arm(rig, 2);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kDelivered);
}

TEST(DwmacRx, InjectedBusErrorReportsReadDescriptor) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  arm(rig, 2);
  rig.mac().inject_fatal_bus_error(DwmacModel::Channel::kRx);
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), Outcome::kQueued);
  EXPECT_EQ((rig.read(facts::kCh0Status) >> 19) & 7, 7u);
  EXPECT_EQ(rig.mac().counters().bus_errors, 1u);
  EXPECT_EQ(rig.rx_desc(0)[3] & facts::kOwn, facts::kOwn);
}

// docs/hardware/dwmac.md §4.1 RING_LENGTH = N − 1 and docs/hardware/dwmac.md §5.6 wrap, on the
// receive side.
TEST(DwmacRx, RingWrapsAndRecycledDescriptorsAreReused) {
  Rig rig;
  ASSERT_TRUE(rig.init({.rx_count = 4}));
  arm(rig, 3);  // keep one slot empty (docs/hardware/dwmac.md §5.6)
  std::uint32_t next_arm = 3;
  for (int k = 0; k < 10; ++k) {
    const std::uint32_t slot = static_cast<std::uint32_t>(k) % 4;
    ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(60, k)), Outcome::kDelivered) << k;
    EXPECT_EQ(rig.rx_desc(slot)[3] & facts::kOwn, 0u);
    EXPECT_EQ(std::memcmp(rig.at(rig.rx_buffer(slot)), frame_to_us(60, k).data(), 60), 0);
    rig.arm_rx(next_arm);
    next_arm = (next_arm + 1) % 4;
    rig.rx_tail(next_arm);
  }
}

}  // namespace
}  // namespace starling::model
