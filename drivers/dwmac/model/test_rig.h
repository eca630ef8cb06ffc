#ifndef STARLING_DRIVERS_DWMAC_MODEL_TEST_RIG_H_
#define STARLING_DRIVERS_DWMAC_MODEL_TEST_RIG_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"

// The model's own tests drive it through a tiny driver-like rig. Its register
// numbers are typed in again from docs/hardware/dwmac.md, separately from the model's,
// so that a typo in either makes a test fail. Not the real driver.
namespace starling::model::testing {

namespace facts {
// docs/hardware/dwmac.md §2.
constexpr std::uint32_t kMacConfiguration = 0x000;
constexpr std::uint32_t kMacPacketFilter = 0x008;
constexpr std::uint32_t kMacHashTableReg0 = 0x010;
constexpr std::uint32_t kMacHashTableReg1 = 0x014;
constexpr std::uint32_t kMacRxqCtrl0 = 0x0A0;
constexpr std::uint32_t kMacPhyif = 0x0F8;
constexpr std::uint32_t kMacVersion = 0x110;
constexpr std::uint32_t kMacHwFeature0 = 0x11C;
constexpr std::uint32_t kMacHwFeature1 = 0x120;
constexpr std::uint32_t kMacHwFeature2 = 0x124;
constexpr std::uint32_t kMacMdioAddress = 0x200;
constexpr std::uint32_t kMacMdioData = 0x204;
constexpr std::uint32_t kMacAddress0High = 0x300;
constexpr std::uint32_t kMacAddress0Low = 0x304;
// docs/hardware/dwmac.md §3.
constexpr std::uint32_t kMtlTxq0OperationMode = 0xD00;
constexpr std::uint32_t kMtlTxq0Debug = 0xD08;
constexpr std::uint32_t kMtlRxq0OperationMode = 0xD30;
constexpr std::uint32_t kMtlRxq0Debug = 0xD38;
// docs/hardware/dwmac.md §4.
constexpr std::uint32_t kDmaMode = 0x1000;
constexpr std::uint32_t kDmaSysbusMode = 0x1004;
constexpr std::uint32_t kDmaInterruptStatus = 0x1008;
constexpr std::uint32_t kCh0Control = 0x1100;
constexpr std::uint32_t kCh0TxControl = 0x1104;
constexpr std::uint32_t kCh0RxControl = 0x1108;
constexpr std::uint32_t kCh0TxListAddress = 0x1114;
constexpr std::uint32_t kCh0RxListAddress = 0x111C;
constexpr std::uint32_t kCh0TxTail = 0x1120;
constexpr std::uint32_t kCh0RxTail = 0x1128;
constexpr std::uint32_t kCh0TxRingLength = 0x112C;
constexpr std::uint32_t kCh0RxRingLength = 0x1130;
constexpr std::uint32_t kCh0InterruptEnable = 0x1134;
constexpr std::uint32_t kCh0CurrentTxDesc = 0x1144;
constexpr std::uint32_t kCh0CurrentRxDesc = 0x114C;
constexpr std::uint32_t kCh0Status = 0x1160;
constexpr std::uint32_t kCh0MissFrameCount = 0x1164;

// docs/hardware/dwmac.md §2.4 MMC, and its summaries in MAC_INTERRUPT_STATUS
// and DMA_INTERRUPT_STATUS.
constexpr std::uint32_t kMacInterruptStatus = 0x0B0;
constexpr std::uint32_t kMacInterruptEnable = 0x0B4;
constexpr std::uint32_t kMmcControl = 0x700;
constexpr std::uint32_t kMmcRxInterrupt = 0x704;
constexpr std::uint32_t kMmcTxInterrupt = 0x708;
constexpr std::uint32_t kMmcRxInterruptMask = 0x70C;
constexpr std::uint32_t kMmcTxInterruptMask = 0x710;
constexpr std::uint32_t kTxOctetCountGoodBad = 0x714;
constexpr std::uint32_t kTxPacketCountGoodBad = 0x718;
constexpr std::uint32_t kRxPacketsCountGoodBad = 0x780;
constexpr std::uint32_t kRxOctetCountGoodBad = 0x784;
constexpr std::uint32_t kMmcIpcRxInterruptMask = 0x800;
constexpr std::uint32_t kCntrst = 1u << 0;
constexpr std::uint32_t kCntstopro = 1u << 1;
constexpr std::uint32_t kRstonrd = 1u << 2;
constexpr std::uint32_t kCntfreez = 1u << 3;
constexpr std::uint32_t kCntprst = 1u << 4;
constexpr std::uint32_t kCntprstlvl = 1u << 5;
constexpr std::uint32_t kRxGbPacketIs = 1u << 0;
constexpr std::uint32_t kRxGbOctetIs = 1u << 1;
constexpr std::uint32_t kTxGbOctetIs = 1u << 0;
constexpr std::uint32_t kTxGbPacketIs = 1u << 1;
constexpr std::uint32_t kMmcIs = 1u << 8;
constexpr std::uint32_t kMmcRxIs = 1u << 9;
constexpr std::uint32_t kMmcTxIs = 1u << 10;
constexpr std::uint32_t kMacis = 1u << 17;

// MAC_CONFIGURATION bits (docs/hardware/dwmac.md §2.1).
constexpr std::uint32_t kRe = 1u << 0;
constexpr std::uint32_t kTe = 1u << 1;
constexpr std::uint32_t kLm = 1u << 12;
constexpr std::uint32_t kDm = 1u << 13;
constexpr std::uint32_t kFes = 1u << 14;
constexpr std::uint32_t kPs = 1u << 15;
constexpr std::uint32_t kAcs = 1u << 20;
constexpr std::uint32_t kCst = 1u << 21;
constexpr std::uint32_t kIpc = 1u << 27;
// PACKET_FILTER (docs/hardware/dwmac.md §2.1).
constexpr std::uint32_t kPr = 1u << 0;
constexpr std::uint32_t kHmc = 1u << 2;
constexpr std::uint32_t kPm = 1u << 4;
constexpr std::uint32_t kDbf = 1u << 5;
// MTL (docs/hardware/dwmac.md §3).
constexpr std::uint32_t kTsf = 1u << 1;
constexpr std::uint32_t kFep = 1u << 4;
// DMA (docs/hardware/dwmac.md §4).
constexpr std::uint32_t kSwr = 1u << 0;
constexpr std::uint32_t kSt = 1u << 0;
constexpr std::uint32_t kSr = 1u << 0;
constexpr std::uint32_t kTi = 1u << 0;
constexpr std::uint32_t kTps = 1u << 1;
constexpr std::uint32_t kTbu = 1u << 2;
constexpr std::uint32_t kRi = 1u << 6;
constexpr std::uint32_t kRbu = 1u << 7;
constexpr std::uint32_t kRps = 1u << 8;
constexpr std::uint32_t kFbe = 1u << 12;
constexpr std::uint32_t kAis = 1u << 14;
constexpr std::uint32_t kNis = 1u << 15;
constexpr std::uint32_t kAie = kAis;
constexpr std::uint32_t kNie = kNis;
// Descriptors (docs/hardware/dwmac.md §5).
constexpr std::uint32_t kOwn = 1u << 31;
constexpr std::uint32_t kCtxt = 1u << 30;
constexpr std::uint32_t kFd = 1u << 29;
constexpr std::uint32_t kLd = 1u << 28;
constexpr std::uint32_t kTdes2Ioc = 1u << 31;
constexpr std::uint32_t kRdes3Ioc = 1u << 30;
constexpr std::uint32_t kBuf1v = 1u << 24;
constexpr std::uint32_t kBuf2v = 1u << 25;
constexpr std::uint32_t kRs1v = 1u << 26;
constexpr std::uint32_t kEs = 1u << 15;
constexpr std::uint32_t kCe = 1u << 24;
constexpr std::uint32_t kPlMask = 0x7FFF;
// Star64 MAC from docs/hardware/jh7110.md §10 (sddf): 6c:cf:39:00:75:5b.
constexpr std::uint32_t kOurMacHigh = 0x0000'5B75;
constexpr std::uint32_t kOurMacLow = 0x0039'CF6C;
}  // namespace facts

inline std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// An Ethernet frame of `size` bytes (no FCS) to `dst`, EtherType 0x88B5
// (IEEE local experimental), payload counting up from `seed`.
inline std::vector<std::byte> frame_to(std::span<const std::byte> dst, std::size_t size,
                                       int seed = 0) {
  std::vector<std::byte> f(size);
  std::memcpy(f.data(), dst.data(), 6);
  const auto src = bytes({0x02, 0x00, 0x00, 0x00, 0x00, 0x99});
  std::memcpy(f.data() + 6, src.data(), 6);
  f[12] = std::byte{0x88};
  f[13] = std::byte{0xB5};
  for (std::size_t i = 14; i < size; ++i) f[i] = static_cast<std::byte>((i + seed) & 0xFF);
  return f;
}

inline std::vector<std::byte> our_mac() {
  return bytes({0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b});
}

inline std::vector<std::byte> frame_to_us(std::size_t size, int seed = 0) {
  return frame_to(our_mac(), size, seed);
}

struct RigOptions {
  std::uint32_t tx_count = 8;
  std::uint32_t rx_count = 8;
  std::uint32_t rx_buffer = 1536;
  std::uint32_t dsl = 0;  // descriptor skip, 8-byte units
  bool start = true;      // ST/SR and TE/RE at the end of init
};

class Rig {
 public:
  static constexpr std::uint64_t kTxRingOffset = 0x0000;
  static constexpr std::uint64_t kRxRingOffset = 0x4000;
  static constexpr std::uint64_t kTxBufferOffset = 0x10000;
  static constexpr std::uint64_t kRxBufferOffset = 0x40000;
  static constexpr std::uint64_t kBufferStride = 0x1000;

  explicit Rig(DwmacModel::Options options = {})
      : region_(DmaRegion::create(1u << 20)), mac_(*region_, options) {
    mac_.on_transmit(
        [this](std::span<const std::byte> f) { sent.emplace_back(f.begin(), f.end()); });
  }

  DwmacModel& mac() { return mac_; }
  DmaRegion& region() { return *region_; }
  std::uint32_t read(std::uint32_t offset) { return mac_.read32(offset); }
  void write(std::uint32_t offset, std::uint32_t value) { mac_.write32(offset, value); }

  std::uint64_t stride() const { return 16 + 8 * options_.dsl; }
  std::uint64_t tx_desc_address(std::uint32_t i) const {
    return region_->base() + kTxRingOffset + i * stride();
  }
  std::uint64_t rx_desc_address(std::uint32_t i) const {
    return region_->base() + kRxRingOffset + i * stride();
  }
  std::uint32_t* tx_desc(std::uint32_t i) { return words(tx_desc_address(i)); }
  std::uint32_t* rx_desc(std::uint32_t i) { return words(rx_desc_address(i)); }
  std::uint64_t tx_buffer(std::uint32_t i) const {
    return region_->base() + kTxBufferOffset + i * kBufferStride;
  }
  std::uint64_t rx_buffer(std::uint32_t i) const {
    return region_->base() + kRxBufferOffset + i * kBufferStride;
  }
  std::byte* at(std::uint64_t address) {
    return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address));
  }

  // docs/hardware/dwmac.md §6.1 step 2: SWR, then poll it clear (bounded). False if it never
  // clears.
  bool soft_reset(int max_polls = 100) {
    write(facts::kDmaMode, facts::kSwr);
    for (int i = 0; i < max_polls; ++i)
      if ((read(facts::kDmaMode) & facts::kSwr) == 0) return true;
    return false;
  }

  // docs/hardware/dwmac.md §6.1 steps 2-11, minus PHY work. RX descriptors are not armed.
  bool init(RigOptions options = {}) {
    options_ = options;
    if (!soft_reset()) return false;
    write(facts::kCh0Control, options.dsl << 18);
    write(facts::kCh0RxControl, options.rx_buffer << 1);
    write(facts::kCh0TxRingLength, options.tx_count - 1);
    write(facts::kCh0RxRingLength, options.rx_count - 1);
    write(facts::kCh0TxListAddress, static_cast<std::uint32_t>(tx_desc_address(0)));
    write(facts::kCh0RxListAddress, static_cast<std::uint32_t>(rx_desc_address(0)));
    write(facts::kCh0TxTail, static_cast<std::uint32_t>(tx_desc_address(0)));
    write(facts::kCh0RxTail, static_cast<std::uint32_t>(rx_desc_address(0)));
    write(facts::kMacAddress0High, facts::kOurMacHigh);
    write(facts::kMacAddress0Low, facts::kOurMacLow);
    write(facts::kMtlTxq0OperationMode, facts::kTsf | (2u << 2));
    write(facts::kMtlRxq0OperationMode, 1u << 5);  // RSF
    write(facts::kMacRxqCtrl0, 2);
    if (options.start) start();
    return true;
  }

  void start() {
    write(facts::kCh0TxControl, read(facts::kCh0TxControl) | facts::kSt);
    write(facts::kCh0RxControl, read(facts::kCh0RxControl) | facts::kSr);
    write(facts::kMacConfiguration, read(facts::kMacConfiguration) | facts::kTe | facts::kRe);
  }

  // RX read format (docs/hardware/dwmac.md §5.4): RDES0 buffer, RDES3 OWN|IOC|BUF1V.
  void arm_rx(std::uint32_t i, bool ioc = true) {
    std::uint32_t* d = rx_desc(i);
    d[0] = static_cast<std::uint32_t>(rx_buffer(i));
    d[1] = 0;
    d[2] = 0;
    d[3] = facts::kOwn | facts::kBuf1v | (ioc ? facts::kRdes3Ioc : 0);
  }
  void rx_tail(std::uint32_t index) {
    write(facts::kCh0RxTail, static_cast<std::uint32_t>(rx_desc_address(0) + index * stride()));
  }
  void tx_tail(std::uint32_t index) {
    write(facts::kCh0TxTail, static_cast<std::uint32_t>(tx_desc_address(0) + index * stride()));
  }

  // TX read format (docs/hardware/dwmac.md §5.1): one-descriptor frame, FD|LD, B1L, IOC, CIC.
  void post_tx(std::uint32_t i, std::span<const std::byte> frame, bool ioc = true,
               std::uint32_t cic = 0) {
    std::memcpy(at(tx_buffer(i)), frame.data(), frame.size());
    std::uint32_t* d = tx_desc(i);
    d[0] = static_cast<std::uint32_t>(tx_buffer(i));
    d[1] = 0;
    d[2] = static_cast<std::uint32_t>(frame.size()) | (ioc ? facts::kTdes2Ioc : 0);
    d[3] = facts::kOwn | facts::kFd | facts::kLd | (cic << 16) |
           static_cast<std::uint32_t>(frame.size());
  }

  // Clause-22 MDIO read per docs/hardware/dwmac.md §2.3 "MDIO transaction" (CR = 5 as U-Boot on
  // JH7110).
  std::optional<std::uint16_t> mdio_read(std::uint8_t pa, std::uint8_t reg, int max_polls = 50) {
    if (!mdio_idle(max_polls)) return std::nullopt;
    write(facts::kMacMdioAddress, (pa << 21) | (reg << 16) | (5u << 8) | (3u << 2) | 1u);
    if (!mdio_idle(max_polls)) return std::nullopt;
    return static_cast<std::uint16_t>(read(facts::kMacMdioData) & 0xFFFF);
  }
  bool mdio_write(std::uint8_t pa, std::uint8_t reg, std::uint16_t value, int max_polls = 50) {
    if (!mdio_idle(max_polls)) return false;
    write(facts::kMacMdioData, value);
    write(facts::kMacMdioAddress, (pa << 21) | (reg << 16) | (5u << 8) | (1u << 2) | 1u);
    return mdio_idle(max_polls);
  }
  bool mdio_idle(int max_polls) {
    for (int i = 0; i < max_polls; ++i)
      if ((read(facts::kMacMdioAddress) & 1u) == 0) return true;
    return false;
  }

  std::vector<std::vector<std::byte>> sent;

 private:
  std::uint32_t* words(std::uint64_t address) {
    return reinterpret_cast<std::uint32_t*>(static_cast<std::uintptr_t>(address));
  }

  std::unique_ptr<DmaRegion> region_;
  DwmacModel mac_;
  RigOptions options_;
};

}  // namespace starling::model::testing

#endif  // STARLING_DRIVERS_DWMAC_MODEL_TEST_RIG_H_
