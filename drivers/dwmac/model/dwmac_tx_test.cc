#include <cstring>

#include <gtest/gtest.h>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"
#include "kernel/test_frames/frames.h"

namespace starling::model {
namespace {

using testing::frame_to;
using testing::Rig;
using testing::RigOptions;
namespace facts = testing::facts;
using State = DwmacModel::DmaState;

std::vector<std::byte> broadcast(std::size_t size, int seed = 0) {
  return frame_to(testing::bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), size, seed);
}

// docs/hardware/dwmac.md §5.6 "Setting ST/SR from the stopped state loads the current
// pointer from LIST_ADDRESS"; "TX tail = base (empty)".
TEST(DwmacTx, StartLoadsListAddressAndAnEmptyRingSuspends) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(0));
  EXPECT_EQ(rig.read(facts::kCh0CurrentTxDesc), static_cast<std::uint32_t>(rig.tx_desc_address(0)));
  // Reaching the tail suspends with TBU (docs/hardware/dwmac.md §5.6 "R sets TBU on TX").
  EXPECT_EQ(rig.mac().tx_state(), State::kSuspended);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTbu, 0u);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.mac().counters().tx_descriptors, 0u);
}

// docs/hardware/dwmac.md §5.6 "Tail pointer = address just past the last descriptor the driver has
// made valid (exclusive)"; "Resume: ... write the tail pointer".
TEST(DwmacTx, TailIsExclusiveAndATailWriteResumes) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, broadcast(60, 0));
  rig.post_tx(1, broadcast(61, 1));
  rig.tx_tail(1);  // only descriptor 0 is handed over
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], broadcast(60, 0));
  EXPECT_EQ(rig.tx_desc(1)[3] & facts::kOwn, facts::kOwn);  // AT the tail: untouched
  EXPECT_EQ(rig.mac().tx_state(), State::kSuspended);
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(1));
  rig.tx_tail(2);
  ASSERT_EQ(rig.sent.size(), 2u);
  EXPECT_EQ(rig.sent[1], broadcast(61, 1));
  EXPECT_EQ(rig.mac().counters().tail_writes_tx, 3u);  // init + 2
}

// docs/hardware/dwmac.md §5.2 TX write-back: "DMA clears OWN"; "TI tx complete (frame with IOC)".
TEST(DwmacTx, WriteBackClearsOwnAndRaisesTiOnlyWithIoc) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, broadcast(64), /*ioc=*/false);
  rig.tx_tail(1);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, 0u);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kEs, 0u);
  EXPECT_EQ(rig.tx_desc(0)[3] & (facts::kFd | facts::kLd), facts::kFd | facts::kLd);
  EXPECT_EQ(rig.read(facts::kCh0Status) & facts::kTi, 0u);
  rig.post_tx(1, broadcast(64), /*ioc=*/true);
  rig.tx_tail(2);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTi, 0u);
  EXPECT_EQ(rig.mac().counters().tx_frames, 2u);
  EXPECT_EQ(rig.mac().counters().tx_bytes, 128u);
}

// docs/hardware/dwmac.md §5.2 TX write-back "15 ES", "2 UF", "9 LC": only on the LD descriptor,
// only when injected; the frame does not leave.
TEST(DwmacTx, InjectedErrorIsReportedOnTheLastDescriptor) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.mac().inject_tx_error((1u << 2) | (1u << 9));
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.tx_desc(0)[3] & (facts::kOwn | facts::kEs | (1u << 2) | (1u << 9)),
            facts::kEs | (1u << 2) | (1u << 9));
  EXPECT_EQ(rig.mac().counters().tx_errors, 1u);
  rig.post_tx(1, broadcast(60));  // one frame only
  rig.tx_tail(2);
  EXPECT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.tx_desc(1)[3] & facts::kEs, 0u);
}

// docs/hardware/dwmac.md §5.6 "Fetched descriptor with OWN=0 → TX: TBU, TX DMA suspended".
TEST(DwmacTx, DescriptorWithoutOwnSuspends) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, broadcast(60));
  rig.tx_desc(0)[3] &= ~facts::kOwn;  // the driver forgot to hand it over
  rig.write(facts::kCh0Status, facts::kTbu);
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.mac().tx_state(), State::kSuspended);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTbu, 0u);
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(0));
  rig.tx_desc(0)[3] |= facts::kOwn;
  rig.tx_tail(1);
  EXPECT_EQ(rig.sent.size(), 1u);
}

// docs/hardware/dwmac.md §4.1 RING_LENGTH "9:0 = N − 1"; docs/hardware/dwmac.md §5.6 "wraps after
// descriptor N−1 back to the base"; tail "may point outside the ring".
TEST(DwmacTx, RingWrapsAfterLengthPlusOne) {
  Rig rig;
  ASSERT_TRUE(rig.init({.tx_count = 4}));
  for (std::uint32_t round = 0; round < 3; ++round) {
    for (std::uint32_t i = 0; i < 3; ++i) {
      const std::uint32_t slot = (round * 3 + i) % 4;
      rig.post_tx(slot, broadcast(60, static_cast<int>(round * 3 + i)));
      rig.tx_tail((slot + 1) % 4);
    }
  }
  ASSERT_EQ(rig.sent.size(), 9u);
  for (std::uint32_t k = 0; k < 9; ++k) EXPECT_EQ(rig.sent[k], broadcast(60, static_cast<int>(k)));
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(9 % 4));
  // Nothing ever read past descriptor 3 (the ring has 4).
  EXPECT_EQ(rig.mac().counters().bus_errors, 0u);
}

// docs/hardware/dwmac.md §5.6 "stride = 16 + DSL × bus-width bytes (bus width 8 B on JH7110)".
TEST(DwmacTx, DescriptorSkipSetsTheStride) {
  Rig rig;
  ASSERT_TRUE(rig.init({.tx_count = 4, .dsl = 6}));  // U-Boot's 64-byte descriptors
  ASSERT_EQ(rig.stride(), 64u);
  rig.post_tx(0, broadcast(60, 0));
  rig.post_tx(1, broadcast(60, 1));
  rig.tx_tail(2);
  EXPECT_EQ(rig.sent.size(), 2u);
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(0) + 128);
}

// docs/hardware/dwmac.md §5.1 TDES2 "13:0 B1L", "29:16 B2L"; TDES3 FD/LD: a frame gathered from
// several descriptors leaves once, on LD; TI from IOC of the LD descriptor.
TEST(DwmacTx, ChainFromFirstToLastDescriptorIsOneFrame) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  const auto frame = broadcast(300);
  std::memcpy(rig.at(rig.tx_buffer(0)), frame.data(), 100);
  std::memcpy(rig.at(rig.tx_buffer(1)), frame.data() + 100, 50);
  std::memcpy(rig.at(rig.tx_buffer(2)), frame.data() + 150, 100);
  std::memcpy(rig.at(rig.tx_buffer(3)), frame.data() + 250, 50);
  std::uint32_t* d0 = rig.tx_desc(0);
  d0[0] = static_cast<std::uint32_t>(rig.tx_buffer(0));
  d0[1] = static_cast<std::uint32_t>(rig.tx_buffer(1));
  d0[2] = 100u | (50u << 16);
  d0[3] = facts::kOwn | facts::kFd | 300u;
  std::uint32_t* d1 = rig.tx_desc(1);
  d1[0] = static_cast<std::uint32_t>(rig.tx_buffer(2));
  d1[1] = static_cast<std::uint32_t>(rig.tx_buffer(3));
  d1[2] = 100u | (50u << 16) | facts::kTdes2Ioc;
  d1[3] = facts::kOwn | facts::kLd | 300u;
  rig.tx_tail(1);  // only the first half: nothing leaves
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.read(facts::kCh0Status) & facts::kTi, 0u);
  rig.tx_tail(2);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], frame);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTi, 0u);
  EXPECT_EQ(rig.tx_desc(0)[3] & (facts::kOwn | facts::kFd | facts::kLd), facts::kFd);
  EXPECT_EQ(rig.tx_desc(1)[3] & (facts::kOwn | facts::kFd | facts::kLd), facts::kLd);
  EXPECT_EQ(rig.mac().counters().tx_descriptors, 2u);
}

// docs/hardware/dwmac.md §5.3 "TX context descriptor: TDES3 bit 30 = 1 ... DMA hands it back with
// OWN=0".
TEST(DwmacTx, ContextDescriptorIsConsumedAndReturned) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  std::uint32_t* ctx = rig.tx_desc(0);
  ctx[0] = 0;
  ctx[1] = 0;
  ctx[2] = 1448;  // MSS
  ctx[3] = facts::kOwn | facts::kCtxt | (1u << 26);
  rig.post_tx(1, broadcast(60));
  rig.tx_tail(2);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, 0u);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kCtxt, facts::kCtxt);
  EXPECT_EQ(rig.sent.size(), 1u);
}

// docs/hardware/dwmac.md §6.1 step 11: TE gates the transmitter; docs/hardware/dwmac.md §3.1
// MTL_TXQ0_DEBUG "4 TXQSTS (queue not empty)".
TEST(DwmacTx, FramesWaitInTheFifoUntilTe) {
  Rig rig;
  ASSERT_TRUE(rig.init({.start = false}));
  rig.write(facts::kCh0TxControl, facts::kSt);
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, 0u);  // the DMA took it
  EXPECT_EQ(rig.mac().tx_fifo_frames(), 1u);
  EXPECT_NE(rig.read(facts::kMtlTxq0Debug) & (1u << 4), 0u);
  rig.write(facts::kMacConfiguration, facts::kTe);
  EXPECT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.read(facts::kMtlTxq0Debug) & (1u << 4), 0u);
}

// docs/hardware/dwmac.md §3.1 MTL_TXQ0_OPERATION_MODE "0 FTQ flush TX queue" (U-Boot flushes on a
// duplex change): frames held for TE are dropped, and the bit reads back 0.
TEST(DwmacTx, FlushDropsQueuedFrames) {
  Rig rig;
  ASSERT_TRUE(rig.init({.start = false}));
  rig.write(facts::kCh0TxControl, facts::kSt);
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  ASSERT_EQ(rig.mac().tx_fifo_frames(), 1u);
  rig.write(facts::kMtlTxq0OperationMode, rig.read(facts::kMtlTxq0OperationMode) | 1u);
  EXPECT_EQ(rig.mac().tx_fifo_frames(), 0u);
  EXPECT_EQ(rig.read(facts::kMtlTxq0OperationMode) & 1u, 0u);
  rig.write(facts::kMacConfiguration, facts::kTe);
  EXPECT_TRUE(rig.sent.empty());
}

// docs/hardware/dwmac.md §4.1 "TXDESC_LIST_ADDRESS ... writing resets the current pointer (R)".
TEST(DwmacTx, ListAddressWriteWhileStoppedMovesTheCurrentPointer) {
  Rig rig;
  ASSERT_TRUE(rig.init({.start = false}));
  rig.write(facts::kCh0TxListAddress, static_cast<std::uint32_t>(rig.tx_desc_address(2)));
  EXPECT_EQ(rig.mac().tx_current_descriptor(), rig.tx_desc_address(2));
  EXPECT_EQ(rig.read(facts::kCh0CurrentTxDesc), static_cast<std::uint32_t>(rig.tx_desc_address(2)));
}

// A stuck transmitter: the tail moves, nothing is fetched; docs/hardware/dwmac.md §3.1 TXQ0_DEBUG
// "TRCSTS 1 reading" is what U-Boot's stop waits out.
TEST(DwmacTx, StallFetchesNothingUntilResumed) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.mac().set_tx_stall(true);
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, facts::kOwn);
  EXPECT_EQ(rig.mac().tx_state(), State::kRunning);
  EXPECT_EQ((rig.read(facts::kMtlTxq0Debug) >> 1) & 3, 1u);
  rig.mac().set_tx_stall(false);
  EXPECT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ((rig.read(facts::kMtlTxq0Debug) >> 1) & 3, 0u);
}

// docs/hardware/dwmac.md §4.1 "ST ... TPS tx process stopped".
TEST(DwmacTx, ClearingStStopsWithTps) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kCh0TxControl, 0);
  EXPECT_EQ(rig.mac().tx_state(), State::kStopped);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTps, 0u);
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  rig.write(facts::kCh0TxControl, facts::kSt);  // restarts from LIST_ADDRESS
  EXPECT_EQ(rig.sent.size(), 1u);
}

// docs/hardware/dwmac.md §4.2 "FBE ... TEB/REB encoding ... 7 = read descriptor, 5 = read data
// buffer"; "FBE stops the DMA; recovery needs SWR + re-init".
TEST(DwmacTx, InjectedBusErrorStopsTheDmaUntilSoftReset) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.mac().inject_fatal_bus_error(DwmacModel::Channel::kTx);
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  const std::uint32_t status = rig.read(facts::kCh0Status);
  EXPECT_NE(status & facts::kFbe, 0u);
  EXPECT_NE(status & facts::kTps, 0u);
  EXPECT_EQ((status >> 16) & 7, 7u);
  EXPECT_EQ(rig.mac().tx_state(), State::kStopped);
  EXPECT_EQ(rig.mac().counters().bus_errors, 1u);
  // Restarting without SWR does nothing.
  rig.write(facts::kCh0TxControl, 0);
  rig.write(facts::kCh0TxControl, facts::kSt);
  EXPECT_EQ(rig.mac().tx_state(), State::kStopped);
  EXPECT_TRUE(rig.sent.empty());
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, broadcast(60));
  rig.tx_tail(1);
  EXPECT_EQ(rig.sent.size(), 1u);
}

TEST(DwmacTx, BufferOutsideDmaMemoryIsAReadBufferBusError) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, broadcast(60));
  rig.tx_desc(0)[0] = 0x1000;  // not DMA memory
  rig.tx_tail(1);
  EXPECT_EQ((rig.read(facts::kCh0Status) >> 16) & 7, 5u);
  EXPECT_EQ(rig.mac().tx_state(), State::kStopped);
  EXPECT_TRUE(rig.sent.empty());
}

TEST(DwmacTx, RingOutsideDmaMemoryIsAReadDescriptorBusError) {
  Rig rig;
  ASSERT_TRUE(rig.init({.start = false}));
  rig.write(facts::kCh0TxListAddress, 0x1000);
  rig.write(facts::kCh0TxTail, 0x1010);
  rig.write(facts::kCh0TxControl, facts::kSt);
  EXPECT_EQ((rig.read(facts::kCh0Status) >> 16) & 7, 7u);
  EXPECT_EQ(rig.mac().tx_state(), State::kStopped);
}

// ---- checksum insertion (docs/hardware/dwmac.md §5.1 TDES3 CIC 17:16; "Checksum insertion needs
// TSF")

// RFC 1071's sum, folded: 0xFFFF over a right checksum.
std::uint32_t sum(std::span<const std::byte> b, std::uint32_t acc = 0) {
  return test_frames::ones_complement_sum(b, acc);
}

// Ethernet (broadcast) + IPv4 (20 bytes) + `protocol` header/payload,
// checksums zeroed.
std::vector<std::byte> ipv4_frame(std::uint8_t protocol, std::size_t l4_bytes) {
  std::vector<std::byte> l4(l4_bytes);
  for (std::size_t i = 0; i < l4_bytes; ++i) l4[i] = static_cast<std::byte>(i * 7 + 3);
  if (protocol == 17) {
    l4[4] = static_cast<std::byte>(l4_bytes >> 8);
    l4[5] = static_cast<std::byte>(l4_bytes & 0xFF);
    l4[6] = l4[7] = std::byte{0};
  } else if (protocol == 6) {
    l4[16] = l4[17] = std::byte{0};
  } else {
    l4[2] = l4[3] = std::byte{0};
  }
  return test_frames::ipv4_frame({.dst = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
                                 {.src = 0x0A000001, .dst = 0x0A000002, .checksum = false},
                                 protocol, l4);
}

std::uint32_t pseudo(std::span<const std::byte> ip, std::uint8_t protocol, std::size_t l4) {
  return sum(ip.subspan(12, 8)) + protocol + static_cast<std::uint32_t>(l4);
}

TEST(DwmacTxChecksum, InsertsIpv4HeaderAndUdpTcpIcmpChecksums) {
  for (std::uint8_t protocol : {std::uint8_t{17}, std::uint8_t{6}, std::uint8_t{1}}) {
    Rig rig;
    ASSERT_TRUE(rig.init());
    const auto frame = ipv4_frame(protocol, 41);
    rig.post_tx(0, frame, true, /*cic=*/3);
    rig.tx_tail(1);
    ASSERT_EQ(rig.sent.size(), 1u);
    const std::span<const std::byte> ip(rig.sent[0].data() + 14, 20 + 41);
    EXPECT_EQ(sum(ip.first(20)), 0xFFFFu) << int{protocol};
    const auto l4 = ip.subspan(20);
    const std::uint32_t ph = protocol == 1 ? 0 : pseudo(ip, protocol, l4.size());
    EXPECT_EQ(sum(l4, ph), 0xFFFFu) << int{protocol};
    EXPECT_NE(rig.sent[0], frame);
    EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 1u);
  }
}

// IPv6 (no header checksum): TCP, UDP and ICMPv6 right after the fixed
// header get theirs over the IPv6 pseudo-header; a fragment header in
// between leaves the frame as it was.
std::vector<std::byte> ipv6_frame(std::uint8_t next, std::size_t l4_bytes) {
  std::vector<std::byte> f(14 + 40 + l4_bytes);
  f[12] = std::byte{0x86};
  f[13] = std::byte{0xDD};
  f[14] = std::byte{0x60};
  f[18] = static_cast<std::byte>(l4_bytes >> 8);
  f[19] = static_cast<std::byte>(l4_bytes & 0xFF);
  f[20] = std::byte{next};
  f[21] = std::byte{64};
  for (std::size_t i = 22; i < f.size(); ++i) f[i] = static_cast<std::byte>(i * 7 + 1);
  if (next == 17) {
    f[54 + 4] = static_cast<std::byte>(l4_bytes >> 8);
    f[54 + 5] = static_cast<std::byte>(l4_bytes & 0xFF);
  }
  return f;
}

TEST(DwmacTxChecksum, InsertsIpv6UdpTcpIcmpv6Checksums) {
  for (std::uint8_t next : {std::uint8_t{17}, std::uint8_t{6}, std::uint8_t{58}}) {
    Rig rig;
    ASSERT_TRUE(rig.init());
    rig.post_tx(0, ipv6_frame(next, 45), true, /*cic=*/3);
    rig.tx_tail(1);
    ASSERT_EQ(rig.sent.size(), 1u);
    const std::span<const std::byte> ip(rig.sent[0].data() + 14, 40 + 45);
    const std::uint32_t ph = sum(ip.subspan(8, 32)) + next + 45u;
    EXPECT_EQ(sum(ip.subspan(40), ph), 0xFFFFu) << int{next};
    EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 1u);
  }
  Rig rig;
  ASSERT_TRUE(rig.init());
  const auto fragment = ipv6_frame(44, 45);
  rig.post_tx(0, fragment, true, /*cic=*/3);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], fragment);
  EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 0u);
}

// CIC 10: "IP header and payload, pseudo-header not calculated" (databook):
// the driver leaves the pseudo-header sum in the field, as Linux does.
TEST(DwmacTxChecksum, CicTwoKeepsTheDriversPseudoHeaderSum) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  auto frame = ipv4_frame(17, 30);
  const std::span<const std::byte> ip(frame.data() + 14, 50);
  const std::uint32_t seed = sum({}, pseudo(ip, 17, 30));
  frame[14 + 20 + 6] = static_cast<std::byte>(seed >> 8);
  frame[14 + 20 + 7] = static_cast<std::byte>(seed & 0xFF);
  rig.post_tx(0, frame, true, /*cic=*/2);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  const std::span<const std::byte> out(rig.sent[0].data() + 14, 50);
  EXPECT_EQ(sum(out.subspan(20), pseudo(out, 17, 30)), 0xFFFFu);
}

TEST(DwmacTxChecksum, CicOneInsertsOnlyTheHeaderChecksum) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.post_tx(0, ipv4_frame(17, 20), true, /*cic=*/1);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(sum(std::span<const std::byte>(rig.sent[0]).subspan(14, 20)), 0xFFFFu);
  EXPECT_EQ(rig.sent[0][14 + 20 + 6], std::byte{0});
  EXPECT_EQ(rig.sent[0][14 + 20 + 7], std::byte{0});
}

TEST(DwmacTxChecksum, NothingIsInsertedWithoutStoreAndForward) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMtlTxq0OperationMode, 0);  // TSF clear: threshold mode
  const auto frame = ipv4_frame(17, 20);
  rig.post_tx(0, frame, true, /*cic=*/3);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], frame);
  EXPECT_EQ(rig.mac().counters().tx_checksums_inserted, 0u);
}

TEST(DwmacTxChecksum, CicZeroLeavesTheFrameAlone) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  const auto frame = ipv4_frame(6, 30);
  rig.post_tx(0, frame);
  rig.tx_tail(1);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0], frame);
}

}  // namespace
}  // namespace starling::model

namespace starling::model {
namespace {

// docs/hardware/dwmac.md §6.2: PS, FES and DM are written with TE and RE
// clear. A write that changes them under running engines is counted and
// damages the next frame each way; the same change with both engines off
// damages nothing.
TEST(DwmacSpeedChange, UnderRunningEnginesItDamagesTheNextFrameEachWay) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  const std::uint32_t running = rig.read(facts::kMacConfiguration);
  ASSERT_NE(running & facts::kTe, 0u);
  rig.write(facts::kMacConfiguration, running | facts::kPs | facts::kFes);
  EXPECT_EQ(rig.mac().counters().speed_changes_while_enabled, 1u);
  rig.post_tx(0, testing::frame_to(testing::bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), 64));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());  // cut on the wire
  rig.post_tx(1, testing::frame_to(testing::bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), 64));
  rig.tx_tail(2);
  EXPECT_EQ(rig.sent.size(), 1u);  // only the next one
  EXPECT_EQ(rig.mac().counters().frames_damaged_by_speed_change, 1u);
  // Engines off, then the change, then on: nothing counted.
  const std::uint32_t now = rig.read(facts::kMacConfiguration);
  rig.write(facts::kMacConfiguration, now & ~(facts::kTe | facts::kRe));
  rig.write(facts::kMacConfiguration, now & ~(facts::kTe | facts::kRe | facts::kPs | facts::kFes));
  rig.write(facts::kMacConfiguration,
            (now & ~(facts::kPs | facts::kFes)) | facts::kTe | facts::kRe);
  EXPECT_EQ(rig.mac().counters().speed_changes_while_enabled, 1u);
}

// LM: what the transmitter sends comes back through the receive engine
// (filter, DMA, write-back) and never reaches the wire; without the PHY's
// RX clock nothing comes back.
TEST(DwmacLoopback, TransmittedFramesComeBackThroughTheRxRing) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.write(facts::kMacConfiguration, rig.read(facts::kMacConfiguration) | facts::kLm);
  rig.arm_rx(0);
  rig.rx_tail(1);
  const auto frame = testing::frame_to(testing::our_mac(), 100, 3);
  rig.post_tx(0, frame);
  rig.tx_tail(1);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(rig.mac().counters().tx_looped_back, 1u);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, 0u);
  ASSERT_EQ(rig.rx_desc(0)[3] & facts::kOwn, 0u);
  EXPECT_EQ(rig.rx_desc(0)[3] & 0x7FFF, 100u + 4u);  // PL with the FCS (no CST here)
  EXPECT_EQ(std::memcmp(rig.at(rig.rx_buffer(0)), frame.data(), frame.size()), 0);
}

TEST(DwmacLoopback, WithoutThePhysRxClockNothingComesBack) {
  Rig rig;
  ASSERT_TRUE(rig.init());
  rig.mac().phy().set_link(false);  // no partner, RXC not kept on: no clk_rx_i
  ASSERT_FALSE(rig.mac().phy().rx_clock_running());
  rig.write(facts::kMacConfiguration, rig.read(facts::kMacConfiguration) | facts::kLm);
  rig.arm_rx(0);
  rig.rx_tail(1);
  rig.post_tx(0, testing::frame_to(testing::our_mac(), 100, 3));
  rig.tx_tail(1);
  EXPECT_EQ(rig.tx_desc(0)[3] & facts::kOwn, 0u);  // sent
  EXPECT_NE(rig.rx_desc(0)[3] & facts::kOwn, 0u);  // never received
  EXPECT_TRUE(rig.sent.empty());
}

}  // namespace
}  // namespace starling::model
