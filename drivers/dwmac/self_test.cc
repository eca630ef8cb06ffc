// The first-power-on self-test: one frame through the MAC's internal
// loopback (MAC_CONFIGURATION.LM), sent and received through the driver's
// real rings and buffers, before the link is used.
//
// Why: on the JH7110 nothing we can run on the host proves that the GMAC
// and the CPU agree about memory. Mainline's jh7110.dtsi marks the GMACs
// DMA-coherent (no `dma-noncoherent`) and Linux, U-Boot and sDDF do no cache
// maintenance for them, but coherence is per bus master on this SoC and our
// 16-byte descriptors share cache lines four at a time; the device model is
// coherent by construction. A frame that makes the whole trip (TX
// descriptor fetched and written back, bytes read from DRAM, checksums
// inserted, bytes written to an RX buffer, RX descriptor written back)
// proves the data path on the silicon itself, and a frame that does not
// says which step failed (docs/star64.md, "First power-on").
//
// The loopback needs the receive clock (clk_rx_i, from the PHY: the
// databook's LM note; on the Star64 the PHY keeps it running without a
// cable), which the software reset needed anyway: the test runs once, the
// first time the core is out of reset. It leaves the NIC's counters as it
// found them (only selftests_passed or selftests_failed moves) and, when
// anything went wrong, the core reset and the rings laid out afresh. The
// boot goes on either way.

#include <cstring>

#include "drivers/dwmac/barrier.h"
#include "drivers/dwmac/dwmac.h"
#include "drivers/mmio/poll_deadline.h"
#include "kernel/console/console.h"

namespace starling::dwmac {
namespace {

using namespace reg;

// Ethernet (14) + IPv4 (20) + UDP (8) + 86 bytes of payload.
constexpr std::uint32_t kFrameBytes = 128;
constexpr std::size_t kIpv4ChecksumAt = 14 + 10;
constexpr std::size_t kUdpChecksumAt = 14 + 20 + 6;
// What the receive buffer holds before the frame lands: no byte of the
// frame's payload pattern is 0xEE at the same place, so stale bytes show.
constexpr std::byte kFill{0xEE};

void put16(std::byte* at, std::uint16_t value) {
  at[0] = static_cast<std::byte>(value >> 8);
  at[1] = static_cast<std::byte>(value);
}

std::uint16_t get16(const std::byte* at) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(at[0]) << 8 |
                                    std::to_integer<unsigned>(at[1]));
}

// To our own address (the MAC's perfect filter passes it) from our own
// address; IPv4/UDP between two documentation addresses (RFC 5737) and the
// discard port, TTL 1, both checksums 0 for the MAC to insert; a payload
// where each byte depends on its offset, so a shifted, swapped or stale
// byte shows.
void build_frame(std::byte* f, const hal::MacAddress& mac) {
  std::memset(f, 0, kFrameBytes);
  for (int i = 0; i < 6; ++i) f[i] = f[6 + i] = static_cast<std::byte>(mac.bytes[i]);
  put16(f + 12, 0x0800);
  std::byte* ip = f + 14;
  ip[0] = std::byte{0x45};
  put16(ip + 2, kFrameBytes - 14);
  put16(ip + 4, 0x5354);  // identification "ST"
  put16(ip + 6, 0x4000);  // DF, no fragment offset
  ip[8] = std::byte{1};   // TTL
  ip[9] = std::byte{17};  // UDP
  const std::byte src[4] = {std::byte{192}, std::byte{0}, std::byte{2}, std::byte{1}};
  const std::byte dst[4] = {std::byte{192}, std::byte{0}, std::byte{2}, std::byte{2}};
  std::memcpy(ip + 12, src, 4);
  std::memcpy(ip + 16, dst, 4);
  std::byte* udp = ip + 20;
  put16(udp, 9);
  put16(udp + 2, 9);
  put16(udp + 4, kFrameBytes - 14 - 20);
  for (std::uint32_t i = 14 + 20 + 8; i < kFrameBytes; ++i) {
    f[i] = static_cast<std::byte>((i * 37 + 11) & 0xFF);
  }
}

void print_hex_field(const char* name, std::uint32_t value) {
  console::print(name);
  console::print_hex(value);
}

void print_dec(std::uint64_t value) {
  console::print_dec(static_cast<std::int64_t>(value));
}

// "FAILED: TX descriptor 0 not written back in 10 ms (TDES3 0x..., DMA_CH0_STATUS
// 0x..., DMA_DEBUG_STATUS0 0x...)": a descriptor the DMA never handed back.
void print_not_written_back(const char* ring, std::uint32_t slot, const char* word_name,
                            std::uint32_t word, std::uint32_t status, std::uint32_t debug) {
  console::print("FAILED: ");
  console::print(ring);
  console::print(" descriptor ");
  print_dec(slot);
  console::print(" not written back in 10 ms (");
  print_hex_field(word_name, word);
  print_hex_field(", DMA_CH0_STATUS ", status);
  print_hex_field(", DMA_DEBUG_STATUS0 ", debug);
  console::print(")");
}

}  // namespace

void Dwmac::run_self_test() {
  if (self_test_tried_) return;
  self_test_tried_ = true;
  if (!params_.self_test) {
    console::print("dwmac: self-test skipped (selftest=off)\n");
    return;
  }
  // The traffic counters stay as they were: the frame is no traffic.
  const hal::NicStats stats_before = stats_;
  const DriverStats driver_before = driver_stats_;

  const std::uint32_t tx_slot = tx_head_ % kTxRingSize;
  const std::uint32_t rx_slot = rx_next_ % kRxRingSize;
  const std::uint16_t rx_buffer = rx_slot_buffer_[rx_slot];
  const mem::PhysAddr tx_phys =
      tx_buffers_phys_ + std::uint64_t{tx_slot_buffer_[tx_slot]} * kBufferBytes;
  std::byte* sent = mem::to_pointer(tx_phys);
  std::byte* received = mem::to_pointer(rx_buffer_phys(rx_buffer));
  build_frame(sent, mac_);
  // The RX buffer is the DMA's, but no frame can arrive: RE is off until
  // the link comes up (configure()).
  std::memset(received, std::to_integer<int>(kFill), kFrameBytes);

  // Loopback at full duplex, both engines on; the speed bits stay as they
  // are (nothing reaches the PHY).
  const std::uint32_t config = regs_.read(kMacConfiguration);
  regs_.write(kMacConfiguration,
              (config | mac_config::kLm | mac_config::kDm) & ~(mac_config::kTe | mac_config::kRe));
  regs_.update(kMacConfiguration, 0, mac_config::kTe | mac_config::kRe);
  post_tx(tx_phys, kFrameBytes);
  write_tx_tail();

  std::uint32_t tdes3 = 0, rdes3 = 0;
  mmio::PollDeadline deadline(kSelfTestTimeoutNs);
  for (;;) {
    tdes3 = tx_ring_[tx_slot].load(3);
    rdes3 = rx_ring_[rx_slot].load(3);
    if ((tdes3 & desc::kOwn) == 0 && (rdes3 & desc::kOwn) == 0) break;
    if (deadline.passed()) break;
  }
  // OWN clear before the written-back words and the buffer.
  barrier::after_own();
  const std::uint32_t rdes1 = rx_ring_[rx_slot].load(1);
  const std::uint32_t status = regs_.read(kDmaCh0Status);
  const std::uint32_t debug = regs_.read(kDmaDebugStatus0);

  bool passed = false;
  console::print("dwmac: self-test ");
  if ((tdes3 & desc::kOwn) != 0) {
    print_not_written_back("TX", tx_slot, "TDES3 ", tdes3, status, debug);
  } else if ((tdes3 & desc::kTxErrorSummary) != 0) {
    console::print("FAILED: TX descriptor ");
    print_dec(tx_slot);
    print_hex_field(" written back with errors (TDES3 ", tdes3);
    console::print(")");
  } else if ((rdes3 & desc::kOwn) != 0) {
    print_not_written_back("RX", rx_slot, "RDES3 ", rdes3, status, debug);
    console::print("; TX descriptor ");
    print_dec(tx_slot);
    console::print(" was written back");
  } else if ((rdes3 & (desc::kFirst | desc::kLast)) != (desc::kFirst | desc::kLast) ||
             (rdes3 & desc::kRxErrorSummary) != 0 ||
             (rdes3 & desc::kRxPacketLengthMask) != kFrameBytes) {
    console::print("FAILED: RX descriptor ");
    print_dec(rx_slot);
    print_hex_field(" written back with RDES3 ", rdes3);
    console::print(" (length ");
    print_dec(rdes3 & desc::kRxPacketLengthMask);
    console::print("; expected FD, LD, no error summary, length 128)");
  } else {
    // Every byte but the two checksum fields (when the MAC inserts them)
    // as sent.
    std::uint32_t differ = 0, first = kFrameBytes;
    for (std::uint32_t i = 0; i < kFrameBytes; ++i) {
      const bool checksum = tx_checksum_ && (i == kIpv4ChecksumAt || i == kIpv4ChecksumAt + 1 ||
                                             i == kUdpChecksumAt || i == kUdpChecksumAt + 1);
      if (checksum || received[i] == sent[i]) continue;
      if (differ++ == 0) first = i;
    }
    const std::uint16_t ip_sum = get16(received + kIpv4ChecksumAt);
    const std::uint16_t udp_sum = get16(received + kUdpChecksumAt);
    // The receive engine checks both sums (IPC): IPv4, UDP, no header or
    // payload checksum error, not bypassed.
    const bool rx_checked = (rdes3 & desc::kRxRdes1Valid) != 0 && (rdes1 & desc::kRxIpv4) != 0 &&
                            (rdes1 & desc::kRxPayloadTypeMask) == desc::kRxPayloadUdp &&
                            (rdes1 & (desc::kRxIpHeaderError | desc::kRxPayloadChecksumError |
                                      desc::kRxChecksumBypassed)) == 0;
    if (differ != 0) {
      console::print("FAILED: RX buffer ");
      print_dec(rx_buffer);
      console::print(": ");
      print_dec(differ);
      console::print(" of 128 bytes differ, the first at byte ");
      print_dec(first);
      print_hex_field(" (sent ", std::to_integer<std::uint32_t>(sent[first]));
      print_hex_field(", received ", std::to_integer<std::uint32_t>(received[first]));
      console::print(received[first] == kFill ? ": never written)" : ")");
    } else if (tx_checksum_ && (ip_sum == 0 || udp_sum == 0)) {
      console::print("FAILED: checksums not inserted (IPv4 header ");
      console::print_hex(ip_sum);
      console::print(", UDP ");
      console::print_hex(udp_sum);
      print_hex_field("; TDES3 ", tdes3);
      console::print(")");
    } else if (tx_checksum_ && rx_checksum_ && !rx_checked) {
      console::print("FAILED: the receive engine refused the inserted checksums (RDES1 ");
      console::print_hex(rdes1);
      console::print(")");
    } else {
      passed = true;
      console::print("passed: a 128-byte frame through MAC loopback, TX descriptor ");
      print_dec(tx_slot);
      console::print(" and RX descriptor ");
      print_dec(rx_slot);
      console::print(" written back, payload intact, ");
      console::print(!tx_checksum_  ? (params_.dma_mode == DmaMode::kThreshold
                                           ? "checksum insertion off (threshold mode)"
                                           : "checksum insertion off")
                     : rx_checksum_ ? "IPv4 and UDP checksums inserted (the RX engine agrees)"
                                    : "IPv4 and UDP checksums inserted");
    }
  }
  console::print(passed ? "\n" : "; carrying on\n");

  // Engines off, loopback off, the configuration as it was.
  stop_mac();
  regs_.write(kMacConfiguration, config);
  if (passed) {
    (void)collect_tx();
    ++rx_next_;
    free_rx_buffer(rx_buffer);
    refill_rx();
  } else {
    // Whatever the DMA still holds or may yet write: a reset and fresh
    // rings. If this reset does not complete the port stays down and the
    // link poll retries it, as at init.
    if (!start_core(kResetTimeoutNs).ok()) {
      console::print("dwmac: software reset after the self-test did not complete; retrying\n");
    }
  }
  stats_ = stats_before;
  driver_stats_.tx_completions = driver_before.tx_completions;
  driver_stats_.tx_error_frames = driver_before.tx_error_frames;
  self_test_ = passed ? SelfTest::kPassed : SelfTest::kFailed;
  ++(passed ? stats_.selftests_passed : stats_.selftests_failed);
}

}  // namespace starling::dwmac
