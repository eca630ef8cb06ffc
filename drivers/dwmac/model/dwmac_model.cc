#include "drivers/dwmac/model/dwmac_model.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace starling::model {
namespace {

// Register offsets and fields, written from docs/hardware/dwmac.md §2-§5 for the model
// alone (the driver has its own).
namespace reg {
// docs/hardware/dwmac.md §2.1 MAC.
constexpr std::uint32_t kMacConfiguration = 0x000;
constexpr std::uint32_t kMacExtConfiguration = 0x004;
constexpr std::uint32_t kMacPacketFilter = 0x008;
// docs/hardware/dwmac.md §2.1: the multicast hash filter's 64 bins (HW_FEATURE1
// HASHTBLSZ = 1 on the JH7110), bins 0-31 in REG0, 32-63 in REG1.
constexpr std::uint32_t kMacHashTableReg0 = 0x010;
constexpr std::uint32_t kMacHashTableReg1 = 0x014;
constexpr std::uint32_t kMacQ0TxFlowCtrl = 0x070;
constexpr std::uint32_t kMacRxFlowCtrl = 0x090;
constexpr std::uint32_t kMacRxqCtrl0 = 0x0A0;
constexpr std::uint32_t kMacRxqCtrl1 = 0x0A4;
constexpr std::uint32_t kMacInterruptStatus = 0x0B0;
constexpr std::uint32_t kMacInterruptEnable = 0x0B4;
constexpr std::uint32_t kMacPhyifControlStatus = 0x0F8;
constexpr std::uint32_t kMacVersion = 0x110;
constexpr std::uint32_t kMacDebug = 0x114;
constexpr std::uint32_t kMacHwFeature0 = 0x11C;
constexpr std::uint32_t kMacHwFeature1 = 0x120;
constexpr std::uint32_t kMacHwFeature2 = 0x124;
constexpr std::uint32_t kMacHwFeature3 = 0x128;
constexpr std::uint32_t kMacMdioAddress = 0x200;
constexpr std::uint32_t kMacMdioData = 0x204;
constexpr std::uint32_t kMacAddress0High = 0x300;
constexpr std::uint32_t kMacAddress0Low = 0x304;
// docs/hardware/dwmac.md §2.4 MMC: the statistics counters the model keeps
// (good and bad frames and octets, each way) and their interrupts.
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
constexpr std::uint32_t kMmcIpcRxInterrupt = 0x808;
// docs/hardware/dwmac.md §3 MTL.
constexpr std::uint32_t kMtlOperationMode = 0xC00;
constexpr std::uint32_t kMtlRxqDmaMap0 = 0xC30;
constexpr std::uint32_t kMtlTxq0OperationMode = 0xD00;
constexpr std::uint32_t kMtlTxq0Debug = 0xD08;
constexpr std::uint32_t kMtlQ0InterruptCtrlStatus = 0xD2C;
constexpr std::uint32_t kMtlRxq0OperationMode = 0xD30;
constexpr std::uint32_t kMtlRxq0Debug = 0xD38;
// docs/hardware/dwmac.md §4 DMA, channel 0.
constexpr std::uint32_t kDmaMode = 0x1000;
constexpr std::uint32_t kDmaSysbusMode = 0x1004;
constexpr std::uint32_t kDmaInterruptStatus = 0x1008;
constexpr std::uint32_t kDmaDebugStatus0 = 0x100C;
constexpr std::uint32_t kCh0Control = 0x1100;
constexpr std::uint32_t kCh0TxControl = 0x1104;
constexpr std::uint32_t kCh0RxControl = 0x1108;
constexpr std::uint32_t kCh0TxListHigh = 0x1110;
constexpr std::uint32_t kCh0TxList = 0x1114;
constexpr std::uint32_t kCh0RxListHigh = 0x1118;
constexpr std::uint32_t kCh0RxList = 0x111C;
constexpr std::uint32_t kCh0TxTail = 0x1120;
constexpr std::uint32_t kCh0RxTail = 0x1128;
constexpr std::uint32_t kCh0TxRingLength = 0x112C;
constexpr std::uint32_t kCh0RxRingLength = 0x1130;
constexpr std::uint32_t kCh0InterruptEnable = 0x1134;
constexpr std::uint32_t kCh0RxWatchdog = 0x1138;
constexpr std::uint32_t kCh0CurrentTxDesc = 0x1144;
constexpr std::uint32_t kCh0CurrentRxDesc = 0x114C;
constexpr std::uint32_t kCh0CurrentTxBufferHigh = 0x1150;
constexpr std::uint32_t kCh0CurrentTxBuffer = 0x1154;
constexpr std::uint32_t kCh0CurrentRxBufferHigh = 0x1158;
constexpr std::uint32_t kCh0CurrentRxBuffer = 0x115C;
constexpr std::uint32_t kCh0Status = 0x1160;
constexpr std::uint32_t kCh0MissFrameCount = 0x1164;
}  // namespace reg

constexpr std::uint32_t bit(unsigned n) {
  return 1u << n;
}
constexpr std::uint32_t field(std::uint32_t value, unsigned low, unsigned width) {
  return (value >> low) & ((1u << width) - 1);
}

// docs/hardware/dwmac.md §2.1 MAC_CONFIGURATION.
constexpr std::uint32_t kMacRe = bit(0);
constexpr std::uint32_t kMacTe = bit(1);
constexpr std::uint32_t kMacLm = bit(12);
constexpr std::uint32_t kMacDm = bit(13);
constexpr std::uint32_t kMacFes = bit(14);
constexpr std::uint32_t kMacPs = bit(15);
constexpr std::uint32_t kMacAcs = bit(20);
constexpr std::uint32_t kMacCst = bit(21);
constexpr std::uint32_t kMacIpc = bit(27);
// docs/hardware/dwmac.md §2.1 MAC_PACKET_FILTER.
constexpr std::uint32_t kFilterPr = bit(0);
constexpr std::uint32_t kFilterHmc = bit(2);
constexpr std::uint32_t kFilterPm = bit(4);
constexpr std::uint32_t kFilterDbf = bit(5);
constexpr std::uint32_t kFilterRa = bit(31);
// docs/hardware/dwmac.md §2.1 MAC_RXQ_CTRL0: RXQ0EN 1:0, 10 = DCB/generic.
constexpr std::uint32_t kRxq0EnGeneric = 2;
// docs/hardware/dwmac.md §2.3 MDIO.
constexpr std::uint32_t kMdioGb = bit(0);
constexpr std::uint32_t kMdioC45e = bit(1);
constexpr std::uint32_t kMdioGocWrite = 1;
constexpr std::uint32_t kMdioGocRead = 3;
constexpr std::uint32_t kMacAddressAe = bit(31);
// docs/hardware/dwmac.md §2.4 MMC_CONTROL and the interrupt bits of the
// counters the model keeps; MAC_INTERRUPT_STATUS's MMC summaries.
constexpr std::uint32_t kMmcCntrst = bit(0);      // all counters to 0; self-clearing
constexpr std::uint32_t kMmcCntstopro = bit(1);   // stop at all ones instead of rolling over
constexpr std::uint32_t kMmcRstonrd = bit(2);     // a read resets the counter
constexpr std::uint32_t kMmcCntfreez = bit(3);    // counters hold their values
constexpr std::uint32_t kMmcCntprst = bit(4);     // preset every counter; self-clearing
constexpr std::uint32_t kMmcCntprstlvl = bit(5);  // preset to almost full (1) or almost half (0)
constexpr std::uint32_t kMmcControlKept =
    kMmcCntstopro | kMmcRstonrd | kMmcCntfreez | kMmcCntprstlvl | bit(8);  // 8 UCDBC
constexpr std::uint32_t kMmcAlmostHalf = 0x7FFF'FFF0;
constexpr std::uint32_t kMmcAlmostFull = 0xFFFF'FFF0;
constexpr std::uint32_t kTxGbOctetIs = bit(0);  // MMC_TX_INTERRUPT
constexpr std::uint32_t kTxGbPacketIs = bit(1);
constexpr std::uint32_t kRxGbPacketIs = bit(0);  // MMC_RX_INTERRUPT
constexpr std::uint32_t kRxGbOctetIs = bit(1);
constexpr std::uint32_t kMacMmcIs = bit(8);
constexpr std::uint32_t kMacMmcRxIs = bit(9);
constexpr std::uint32_t kMacMmcTxIs = bit(10);
constexpr std::uint32_t kMacMmcRxIpIs = bit(11);
// docs/hardware/dwmac.md §4.1 DMA_INTERRUPT_STATUS: 0 DC0IS, 17 MACIS.
constexpr std::uint32_t kDmaDc0is = bit(0);
constexpr std::uint32_t kDmaMacis = bit(17);

// The counters the model keeps, with the bit each sets in its interrupt
// register (docs/hardware/dwmac.md §2.4).
struct MmcCounter {
  std::uint32_t offset;
  std::uint32_t interrupt_register;
  std::uint32_t interrupt_bit;
};
constexpr MmcCounter kMmcCounters[] = {
    {reg::kTxOctetCountGoodBad, reg::kMmcTxInterrupt, kTxGbOctetIs},
    {reg::kTxPacketCountGoodBad, reg::kMmcTxInterrupt, kTxGbPacketIs},
    {reg::kRxPacketsCountGoodBad, reg::kMmcRxInterrupt, kRxGbPacketIs},
    {reg::kRxOctetCountGoodBad, reg::kMmcRxInterrupt, kRxGbOctetIs},
};
const MmcCounter* mmc_counter(std::uint32_t offset) {
  for (const MmcCounter& c : kMmcCounters) {
    if (c.offset == offset) return &c;
  }
  return nullptr;
}

// docs/hardware/dwmac.md §3 MTL.
constexpr std::uint32_t kTxqFtq = bit(0);
constexpr std::uint32_t kTxqTsf = bit(1);
constexpr std::uint32_t kTxqTxqenEnabled = 2u << 2;
constexpr std::uint32_t kTxqReadOnly = (3u << 2) | (0x1FFu << 16);  // TXQEN, TQS: single queue
constexpr std::uint32_t kRxqFep = bit(4);
constexpr std::uint32_t kRxqRsf = bit(5);
// MTL_RXQ0_OPERATION_MODE 1:0 RTC: 0 = 64, 1 = 32, 2 = 96, 3 = 128 bytes.
constexpr std::uint32_t rx_threshold_bytes(std::uint32_t rxq_operation_mode) {
  constexpr std::uint32_t kBytes[4] = {64, 32, 96, 128};
  return kBytes[rxq_operation_mode & 3];
}
// docs/hardware/dwmac.md §4 DMA.
constexpr std::uint32_t kDmaSwr = bit(0);
constexpr std::uint32_t kTxSt = bit(0);
constexpr std::uint32_t kRxSr = bit(0);
// docs/hardware/dwmac.md §4.2 DMA_CH0_STATUS / INTERRUPT_ENABLE.
constexpr std::uint32_t kTi = bit(0);
constexpr std::uint32_t kTps = bit(1);
constexpr std::uint32_t kTbu = bit(2);
constexpr std::uint32_t kRi = bit(6);
constexpr std::uint32_t kRbu = bit(7);
constexpr std::uint32_t kRps = bit(8);
constexpr std::uint32_t kRwt = bit(9);
constexpr std::uint32_t kEti = bit(10);
constexpr std::uint32_t kEri = bit(11);
constexpr std::uint32_t kFbe = bit(12);
constexpr std::uint32_t kCde = bit(13);
constexpr std::uint32_t kAis = bit(14);
constexpr std::uint32_t kNis = bit(15);
constexpr unsigned kTebShift = 16;
constexpr unsigned kRebShift = 19;
constexpr std::uint32_t kTebReb = (7u << kTebShift) | (7u << kRebShift);
constexpr std::uint32_t kNormal = kTi | kTbu | kRi | kEri;
constexpr std::uint32_t kAbnormal = kTps | kRbu | kRps | kRwt | kEti | kFbe | kCde;
constexpr std::uint32_t kW1c = kNormal | kAbnormal | kAis | kNis;
// docs/hardware/dwmac.md §4.1 MISS_FRAME_CNT: 10:0 MFC, 15 MFCO.
constexpr std::uint32_t kMfcMax = 0x7FF;
constexpr std::uint32_t kMfco = bit(15);

// docs/hardware/dwmac.md §5 descriptors.
constexpr std::uint32_t kOwn = bit(31);
constexpr std::uint32_t kCtxt = bit(30);
constexpr std::uint32_t kFd = bit(29);
constexpr std::uint32_t kLd = bit(28);
constexpr std::uint32_t kTdes2Ioc = bit(31);
constexpr unsigned kTdes3CicShift = 16;
constexpr std::uint32_t kTdes3Es = bit(15);
constexpr std::uint32_t kRdes3Ioc = bit(30);
constexpr std::uint32_t kRdes3Buf1v = bit(24);
constexpr std::uint32_t kRdes3Buf2v = bit(25);
constexpr std::uint32_t kRdes3Rs1v = bit(26);
constexpr std::uint32_t kRdes3Ce = bit(24);
constexpr std::uint32_t kRdes3Gp = bit(23);
constexpr std::uint32_t kRdes3Oe = bit(21);
constexpr std::uint32_t kRdes3Re = bit(20);
constexpr std::uint32_t kRdes3Es = bit(15);
constexpr unsigned kRdes3LtShift = 16;
constexpr std::uint32_t kRdes3PlMask = 0x7FFF;
constexpr std::uint32_t kRdes1Iphe = bit(3);
constexpr std::uint32_t kRdes1Ipv4 = bit(4);
constexpr std::uint32_t kRdes1Ipv6 = bit(5);
constexpr std::uint32_t kRdes1Ipce = bit(7);

constexpr std::uint64_t kBusWidthBytes = 8;  // JH7110 AXI is 64-bit (docs/hardware/jh7110.md §9)
constexpr std::size_t kDescriptorBytes = 16;

// IEEE 802.3 CRC-32 (reflected 0xEDB88320), as the MAC computes the FCS;
// a byte table, since driver tests push hundreds of thousands of frames.
constexpr std::array<std::uint32_t, 256> kCrcTable = [] {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (0xEDB8'8320u & (0u - (c & 1u)));
    table[n] = c;
  }
  return table;
}();

std::uint32_t crc32(std::span<const std::byte> bytes) {
  std::uint32_t crc = 0xFFFF'FFFF;
  for (std::byte b : bytes)
    crc = (crc >> 8) ^ kCrcTable[(crc ^ static_cast<std::uint8_t>(b)) & 0xFF];
  return ~crc;
}

std::uint16_t be16(std::span<const std::byte> b, std::size_t at) {
  return static_cast<std::uint16_t>((static_cast<unsigned>(b[at]) << 8) |
                                    static_cast<unsigned>(b[at + 1]));
}

void put_be16(std::span<std::byte> b, std::size_t at, std::uint16_t value) {
  b[at] = static_cast<std::byte>(value >> 8);
  b[at + 1] = static_cast<std::byte>(value & 0xFF);
}

// RFC 1071 one's-complement sum of big-endian 16-bit words, added to `sum`,
// not yet folded or inverted. The host board pushes every frame through
// here twice, so it sums 64 bits at a time: little-endian words with the
// carries added back, folded, then swapped once (RFC 1071 §2(B), (C)).
std::uint32_t sum16(std::span<const std::byte> b, std::uint32_t sum = 0) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  const std::size_t n = b.size();
  std::uint64_t acc = 0;
  const auto add = [&acc](std::uint64_t value) {
    acc += value;
    acc += acc < value;
  };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, sizeof word);
    add(word);
  }
  for (; i + 1 < n; i += 2) add(std::uint64_t{p[i]} | (std::uint64_t{p[i + 1]} << 8));
  if (i < n) add(p[i]);
  acc = (acc & 0xFFFF'FFFF) + (acc >> 32);
  acc = (acc & 0xFFFF'FFFF) + (acc >> 32);
  acc = (acc & 0xFFFF) + (acc >> 16);
  acc = (acc & 0xFFFF) + (acc >> 16);
  const auto little = static_cast<std::uint32_t>(acc);
  return sum + (((little & 0xFF) << 8) | (little >> 8));
}

std::uint16_t fold(std::uint32_t sum) {
  while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

// Where the IP packet of an Ethernet frame starts (one 802.1Q tag skipped).
struct L3 {
  std::uint16_t ethertype = 0;
  std::size_t offset = 0;
};

L3 locate_l3(std::span<const std::byte> frame) {
  if (frame.size() < 14) return {};
  std::size_t at = 12;
  std::uint16_t type = be16(frame, at);
  if (type == 0x8100 && frame.size() >= 18) {
    at += 4;
    type = be16(frame, at);
  }
  return {type, at + 2};
}

// Offset of the checksum field inside the transport header, or 0 if none.
// The hash filter's bin for a destination address: the IEEE 802.3 CRC-32
// (reflected, polynomial 0xEDB88320, initial and final inversion), bit
// reversed, its upper 6 bits (64 bins).
unsigned multicast_hash_bin(std::span<const std::byte> mac) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < 6; ++i) {
    crc ^= static_cast<std::uint8_t>(mac[i]);
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ ((crc & 1u) != 0 ? 0xEDB88320u : 0u);
  }
  crc = ~crc;
  std::uint32_t reversed = 0;
  for (int b = 0; b < 32; ++b) reversed |= ((crc >> b) & 1u) << (31 - b);
  return reversed >> 26;
}

std::size_t l4_checksum_offset(std::uint8_t protocol) {
  switch (protocol) {
    case 6:
      return 16;  // TCP
    case 17:
      return 6;  // UDP
    case 1:
      return 2;  // ICMP
    default:
      return 0;
  }
}

std::uint32_t ipv4_pseudo_sum(std::span<const std::byte> ip, std::uint8_t protocol,
                              std::size_t l4_length) {
  std::uint32_t sum = sum16(ip.subspan(12, 8));
  return sum + protocol + static_cast<std::uint32_t>(l4_length);
}

std::uint32_t ipv6_pseudo_sum(std::span<const std::byte> ip, std::uint8_t next_header,
                              std::size_t l4_length) {
  std::uint32_t sum = sum16(ip.subspan(8, 32));
  return sum + next_header + static_cast<std::uint32_t>(l4_length);
}

}  // namespace

DwmacModel::DwmacModel(DmaRegion& dma) : DwmacModel(dma, Options{}) {}

DwmacModel::DwmacModel(DmaRegion& dma, Options options)
    : dma_(dma), options_(options), phy_(options.phy) {
  reset_all();
  counters_.resets = 0;  // power-on, not a soft reset
}

// ---------------------------------------------------------------- registers

bool DwmacModel::known_register(std::uint32_t offset) const {
  switch (offset) {
    case reg::kMacVersion:
    case reg::kMacHwFeature0:
    case reg::kMacHwFeature1:
    case reg::kMacHwFeature2:
    case reg::kMacHwFeature3:
    case reg::kMacPhyifControlStatus:
    case reg::kMacDebug:
    case reg::kDmaInterruptStatus:
    case reg::kDmaDebugStatus0:
    case reg::kCh0CurrentTxDesc:
    case reg::kCh0CurrentRxDesc:
    case reg::kMtlTxq0Debug:
    case reg::kMtlRxq0Debug:
      return true;
    default:
      return regs_.count(offset) != 0;
  }
}

void DwmacModel::reset_all() {
  // docs/hardware/dwmac.md §4.1 DMA_MODE.SWR: "soft reset of all MAC/MTL/DMA CSRs".
  regs_.clear();
  for (std::uint32_t offset : {reg::kMacConfiguration,
                               reg::kMacExtConfiguration,
                               reg::kMacPacketFilter,
                               reg::kMacHashTableReg0,
                               reg::kMacHashTableReg1,
                               reg::kMacQ0TxFlowCtrl,
                               reg::kMacRxFlowCtrl,
                               reg::kMacRxqCtrl0,
                               reg::kMacRxqCtrl1,
                               reg::kMacInterruptStatus,
                               reg::kMacInterruptEnable,
                               reg::kMacMdioAddress,
                               reg::kMacMdioData,
                               reg::kMtlOperationMode,
                               reg::kMtlRxqDmaMap0,
                               reg::kMtlQ0InterruptCtrlStatus,
                               reg::kMtlRxq0OperationMode,
                               reg::kDmaMode,
                               reg::kDmaSysbusMode,
                               reg::kCh0Control,
                               reg::kCh0TxControl,
                               reg::kCh0RxControl,
                               reg::kCh0TxListHigh,
                               reg::kCh0TxList,
                               reg::kCh0RxListHigh,
                               reg::kCh0RxList,
                               reg::kCh0TxTail,
                               reg::kCh0RxTail,
                               reg::kCh0TxRingLength,
                               reg::kCh0RxRingLength,
                               reg::kCh0InterruptEnable,
                               reg::kCh0RxWatchdog,
                               reg::kCh0CurrentTxBufferHigh,
                               reg::kCh0CurrentTxBuffer,
                               reg::kCh0CurrentRxBufferHigh,
                               reg::kCh0CurrentRxBuffer,
                               reg::kCh0Status,
                               reg::kCh0MissFrameCount,
                               reg::kMmcControl,
                               reg::kMmcRxInterrupt,
                               reg::kMmcTxInterrupt,
                               reg::kMmcRxInterruptMask,
                               reg::kMmcTxInterruptMask,
                               reg::kTxOctetCountGoodBad,
                               reg::kTxPacketCountGoodBad,
                               reg::kRxPacketsCountGoodBad,
                               reg::kRxOctetCountGoodBad,
                               reg::kMmcIpcRxInterruptMask,
                               reg::kMmcIpcRxInterrupt}) {
    regs_[offset] = 0;
  }
  // The databook's MAC_Address0 reset value is all ones with AE set (not in
  // docs/hardware/dwmac.md §2.1, which only says AE is effectively always on for n=0).
  regs_[reg::kMacAddress0High] = 0x8000'FFFF;
  regs_[reg::kMacAddress0Low] = 0xFFFF'FFFF;
  // docs/hardware/dwmac.md §3.1: with a single TX queue TXQEN and TQS are read-only (enabled, whole
  // FIFO).
  const std::uint32_t tqs =
      static_cast<std::uint32_t>((128u << options_.fifo_size_field) / 256 - 1);
  regs_[reg::kMtlTxq0OperationMode] = kTxqTxqenEnabled | (tqs << 16);

  tx_ = {};
  rx_ = {};
  tx_frame_.clear();
  tx_in_frame_ = false;
  tx_fifo_.clear();
  damage_next_tx_ = damage_next_rx_ = false;
  rx_fifo_.clear();
  mdio_busy_ = false;
  mdio_stuck_ = false;
  mdio_reads_left_ = 0;
  ++counters_.resets;
  update_interrupt_line();
}

std::uint32_t DwmacModel::tx_threshold() const {
  const std::uint32_t txq = regs_.at(reg::kMtlTxq0OperationMode);
  if ((txq & kTxqTsf) != 0) return 0;
  // 6:4 TTC: 32, 64, 96, 128, 192, 256, 384, 512 bytes.
  constexpr std::uint32_t kBytes[8] = {32, 64, 96, 128, 192, 256, 384, 512};
  return kBytes[field(txq, 4, 3)];
}

std::uint32_t DwmacModel::rx_threshold() const {
  const std::uint32_t rxq = regs_.at(reg::kMtlRxq0OperationMode);
  return (rxq & kRxqRsf) != 0 ? 0 : rx_threshold_bytes(rxq);
}

std::uint32_t DwmacModel::peek(std::uint32_t offset) const {
  switch (offset) {
    case reg::kDmaMode:
      return regs_.at(offset) | (in_reset() ? kDmaSwr : 0);
    case reg::kMacMdioAddress:
      return regs_.at(offset) | (mdio_busy_ ? kMdioGb : 0);
    case reg::kMacVersion:
      return options_.version;
    case reg::kMacHwFeature0:
      // GMIISEL, HDSEL, VLHASH, RWKSEL, MGKSEL, MMCSEL, ARPOFFSEL, TSSEL,
      // EEESEL, TXCOESEL, RXCOESEL; ACTPHYSEL 1 = RGMII (plausible JH7110
      // values, no register dump in the sources).
      return bit(1) | bit(2) | bit(4) | bit(6) | bit(7) | bit(8) | bit(9) | bit(12) | bit(13) |
             bit(14) | bit(16) | (1u << 28);
    case reg::kMacHwFeature1:
      // RX/TXFIFOSIZE, ADDR64 = 1 (40-bit, LOG), TSOEN (DT snps,tso),
      // HASHTBLSZ 1 = 64 bins (DT multicast-filter-bins).
      return (options_.fifo_size_field & 0x1F) | ((options_.fifo_size_field & 0x1F) << 6) |
             (1u << 14) | bit(18) | (1u << 24);
    case reg::kMacHwFeature2:
      return 0;  // one RX/TX queue, one RX/TX channel (counts = field + 1)
    case reg::kMacHwFeature3:
      return 0;
    case reg::kMacPhyifControlStatus: {
      if (!phy_.link_established()) return 0;
      const std::uint32_t speed = phy_.speed() == PhyModel::Speed::k1000  ? 2
                                  : phy_.speed() == PhyModel::Speed::k100 ? 1
                                                                          : 0;
      return bit(19) | (speed << 17) | (phy_.full_duplex() ? bit(16) : 0);
    }
    case reg::kMacInterruptStatus:
      return regs_.at(offset) | mac_mmc_status();
    case reg::kDmaInterruptStatus:
      return (dma_interrupt_bits() != 0 ? kDmaDc0is : 0) |
             (mac_interrupt_pending() ? kDmaMacis : 0);
    case reg::kCh0CurrentTxDesc:
      return static_cast<std::uint32_t>(tx_.current);
    case reg::kCh0CurrentRxDesc:
      return static_cast<std::uint32_t>(rx_.current);
    case reg::kMacDebug:
      // RPESTS (0) and TPESTS (16): the protocol engines are busy only
      // inside a frame, and the model's frames cross the wire inside the
      // register write that sent them: always idle when read.
      return 0;
    case reg::kDmaDebugStatus0: {
      // RPS0 11:8, TPS0 15:12 (docs/hardware/dwmac.md §4.1): 0 stopped,
      // 4 receive / 6 transmit suspended, 3 running (waiting for a frame or
      // fetching; the model does not tell the running states apart).
      const auto state = [](DmaState s, std::uint32_t suspended) -> std::uint32_t {
        return s == DmaState::kStopped ? 0 : s == DmaState::kSuspended ? suspended : 3;
      };
      return state(rx_.state, 4) << 8 | state(tx_.state, 6) << 12;
    }
    case reg::kMtlTxq0Debug: {
      // TRCSTS 1 = reading: a stalled transmitter with work pending never
      // goes idle, which is what a driver's stop sequence must time out on.
      const bool reading =
          tx_stalled_ && tx_.state == DmaState::kRunning && tx_.current != tail(Channel::kTx);
      return (reading ? (1u << 1) : 0) | (tx_fifo_.empty() ? 0 : bit(4));
    }
    case reg::kMtlRxq0Debug: {
      const std::size_t bytes = rx_fifo_bytes();
      const std::size_t capacity = rx_fifo_capacity();
      std::uint32_t level = 0;
      if (bytes + 64 > capacity) {
        level = 3;
      } else if (bytes * 2 >= capacity) {
        level = 2;
      } else if (bytes > 0) {
        level = 1;
      }
      return (static_cast<std::uint32_t>(std::min<std::size_t>(rx_fifo_.size(), 0x3FFF)) << 16) |
             (level << 4);
    }
    default: {
      return regs_.value_or_zero(offset);
    }
  }
}

std::uint32_t DwmacModel::read32(std::uint32_t offset) {
  if (!known_register(offset)) {
    ++counters_.unknown_register_accesses;
    return 0;
  }
  const std::uint32_t value = peek(offset);
  switch (offset) {
    case reg::kDmaMode:
      // docs/hardware/dwmac.md §6.1 step 2: software polls SWR until the core
      // drops it, which it does only while the PHY's RX clock (clk_rx_i)
      // runs (docs/hardware/star64-reference-drivers.md §5).
      if (reset_reads_left_ > 0 && phy_.rx_clock_running()) --reset_reads_left_;
      break;
    case reg::kMacMdioAddress:
      if (mdio_busy_ && !mdio_stuck_) {
        if (mdio_reads_left_ > 0) --mdio_reads_left_;
        if (mdio_reads_left_ == 0) complete_mdio();
      }
      break;
    case reg::kCh0MissFrameCount:
      // Clear-on-read: docs/hardware/dwmac.md §4.1 marks this unconfirmed; the model picks it so
      // that a driver that accumulates the count (rather than diffing) is right.
      regs_[offset] = 0;
      break;
    default:
      if (const MmcCounter* counter = mmc_counter(offset); counter != nullptr) {
        // docs/hardware/dwmac.md §2.4: reading a counter clears the interrupt
        // bit it set; with RSTONRD it also resets the counter.
        regs_[counter->interrupt_register] &= ~counter->interrupt_bit;
        if ((regs_.at(reg::kMmcControl) & kMmcRstonrd) != 0) regs_[offset] = 0;
        update_interrupt_line();
      }
      break;
  }
  return value;
}

void DwmacModel::write32(std::uint32_t offset, std::uint32_t value) {
  if (!known_register(offset)) {
    ++counters_.unknown_register_accesses;
    return;
  }
  if (in_reset()) {
    // While SWR is set the CSRs are held in reset: the write is lost.
    ++counters_.writes_during_reset;
    return;
  }
  switch (offset) {
    // Read-only registers: the write has no effect.
    case reg::kMacVersion:
    case reg::kMacHwFeature0:
    case reg::kMacHwFeature1:
    case reg::kMacHwFeature2:
    case reg::kMacHwFeature3:
    case reg::kMacPhyifControlStatus:
    case reg::kMacInterruptStatus:
    case reg::kDmaInterruptStatus:
    case reg::kCh0CurrentTxDesc:
    case reg::kCh0CurrentRxDesc:
    case reg::kCh0CurrentTxBufferHigh:
    case reg::kCh0CurrentTxBuffer:
    case reg::kCh0CurrentRxBufferHigh:
    case reg::kCh0CurrentRxBuffer:
    case reg::kMtlTxq0Debug:
    case reg::kMtlRxq0Debug:
    case reg::kCh0MissFrameCount:
    case reg::kMmcRxInterrupt:
    case reg::kMmcTxInterrupt:
    case reg::kMmcIpcRxInterrupt:
    case reg::kTxOctetCountGoodBad:
    case reg::kTxPacketCountGoodBad:
    case reg::kRxPacketsCountGoodBad:
    case reg::kRxOctetCountGoodBad:
      return;
    case reg::kMmcControl:
      write_mmc_control(value);
      return;
    case reg::kMmcRxInterruptMask:
    case reg::kMmcTxInterruptMask:
    case reg::kMmcIpcRxInterruptMask:
      regs_[offset] = value;
      update_interrupt_line();  // the MMC summaries follow the masks
      return;
    case reg::kMacConfiguration:
      write_mac_configuration(value);
      return;
    case reg::kMacMdioAddress:
      write_mdio_address(value);
      return;
    case reg::kMacAddress0High:
      regs_[offset] =
          value | kMacAddressAe;  // docs/hardware/dwmac.md §2.1: AE reads as 1 for address 0
      return;
    case reg::kMtlTxq0OperationMode: {
      if ((value & kTxqFtq) != 0) tx_fifo_.clear();  // FTQ flushes and self-clears
      const std::uint32_t kept = regs_[offset] & kTxqReadOnly;
      regs_[offset] = (value & ~(kTxqReadOnly | kTxqFtq)) | kept;
      return;
    }
    case reg::kDmaMode:
      if ((value & kDmaSwr) != 0) {
        reset_all();
        reset_reads_left_ = options_.reset_reads;
        stuck_reset_ = options_.reset_reads == 0;
        return;
      }
      regs_[offset] = value;
      return;
    case reg::kCh0TxControl:
      write_tx_control(value);
      return;
    case reg::kCh0RxControl:
      write_rx_control(value);
      return;
    case reg::kCh0TxList:
      regs_[offset] = value;
      // docs/hardware/dwmac.md §4.1: "writing resets the current pointer (R)"; only while stopped.
      if (tx_.state == DmaState::kStopped) tx_.current = ring_base(Channel::kTx);
      return;
    case reg::kCh0RxList:
      regs_[offset] = value;
      if (rx_.state == DmaState::kStopped) rx_.current = ring_base(Channel::kRx);
      return;
    case reg::kCh0TxRingLength:
      regs_[offset] = value & 0x3FF;
      return;
    case reg::kCh0RxRingLength:
      regs_[offset] = value & 0x00FF'03FF;  // RDRL 9:0, ARBS 23:16
      return;
    case reg::kCh0TxTail:
      // docs/hardware/dwmac.md §5.6 "Resume": any tail write is the kick; there is no poll demand.
      regs_[offset] = value;
      ++counters_.tail_writes_tx;
      if (tx_.state == DmaState::kSuspended) tx_.state = DmaState::kRunning;
      run_tx();
      return;
    case reg::kCh0RxTail:
      regs_[offset] = value;
      ++counters_.tail_writes_rx;
      if (rx_.state == DmaState::kSuspended) rx_.state = DmaState::kRunning;
      run_rx();
      return;
    case reg::kCh0InterruptEnable:
      regs_[offset] = value;
      raise_status(0);  // summaries and the line follow the new enables
      return;
    case reg::kCh0Status:
      write_status(value);
      return;
    default:
      regs_[offset] = value;
      return;
  }
}

void DwmacModel::write_mac_configuration(std::uint32_t value) {
  const std::uint32_t old = regs_[reg::kMacConfiguration];
  regs_[reg::kMacConfiguration] = value;
  // PS, FES and DM select the transmit and receive protocol engines' clock
  // and framing; changed under a running engine, the frame in progress each
  // way is cut or garbled. Linux's stmmac only writes them from
  // mac_link_up(), after phylink's mac_link_down() has cleared TE and RE,
  // and sets TE and RE after; U-Boot's eqos_adjust_link() runs before
  // eqos_start() enables them (docs/hardware/dwmac.md §6.2). The model
  // counts such a write and damages the next frame each way.
  if ((old & (kMacTe | kMacRe)) != 0 && ((old ^ value) & (kMacPs | kMacFes | kMacDm)) != 0) {
    ++counters_.speed_changes_while_enabled;
    damage_next_tx_ = damage_next_rx_ = true;
  }
  if ((value & kMacTe) != 0 && (old & kMacTe) == 0) {
    // Frames the DMA completed while the transmitter was off leave now.
    while (!tx_fifo_.empty()) {
      std::vector<std::byte> frame = std::move(tx_fifo_.front());
      tx_fifo_.pop_front();
      emit(std::move(frame));
    }
  }
}

void DwmacModel::write_mdio_address(std::uint32_t value) {
  // A write while GB is still set is not allowed by the databook; the model
  // keeps the transaction in flight and drops the write.
  if (mdio_busy_) return;
  regs_[reg::kMacMdioAddress] = value & ~kMdioGb;
  if ((value & kMdioGb) == 0) return;
  mdio_busy_ = true;
  mdio_reads_left_ = options_.mdio_busy_reads;
  mdio_stuck_ = options_.mdio_busy_reads == 0;
}

void DwmacModel::complete_mdio() {
  mdio_busy_ = false;
  ++counters_.mdio_transactions;
  const std::uint32_t address = regs_[reg::kMacMdioAddress];
  const auto pa = static_cast<std::uint8_t>(field(address, 21, 5));
  const auto rda = static_cast<std::uint8_t>(field(address, 16, 5));
  const std::uint32_t goc = field(address, 2, 2);
  std::uint32_t& data = regs_[reg::kMacMdioData];
  // Nobody drives MDIO for an absent PHY (or a clause-45 access to this
  // clause-22 PHY): the pull-up reads as all ones.
  const bool present = pa == phy_.address() && (address & kMdioC45e) == 0;
  if (goc == kMdioGocRead) {
    const std::uint16_t read = present ? phy_.read(rda) : 0xFFFF;
    data = (data & 0xFFFF'0000) | read;
  } else if (goc == kMdioGocWrite && present) {
    phy_.write(rda, static_cast<std::uint16_t>(data & 0xFFFF));
  }
}

void DwmacModel::write_tx_control(std::uint32_t value) {
  const std::uint32_t old = regs_[reg::kCh0TxControl];
  regs_[reg::kCh0TxControl] = value;
  if ((value & kTxSt) != 0 && (old & kTxSt) == 0) {
    if (tx_.fatal) return;  // docs/hardware/dwmac.md §4.2: after FBE only SWR recovers
    if (tx_.state == DmaState::kStopped) {
      tx_.current =
          ring_base(Channel::kTx);  // docs/hardware/dwmac.md §5.6: start loads LIST_ADDRESS
      tx_.state = DmaState::kRunning;
    }
    run_tx();
  } else if ((value & kTxSt) == 0 && (old & kTxSt) != 0) {
    if (tx_.state != DmaState::kStopped) {
      tx_.state = DmaState::kStopped;
      tx_frame_.clear();
      tx_in_frame_ = false;
      raise_status(kTps);
    }
  }
}

void DwmacModel::write_rx_control(std::uint32_t value) {
  const std::uint32_t old = regs_[reg::kCh0RxControl];
  regs_[reg::kCh0RxControl] = value;
  if ((value & kRxSr) != 0 && (old & kRxSr) == 0) {
    if (rx_.fatal) return;
    if (rx_.state == DmaState::kStopped) {
      rx_.current = ring_base(Channel::kRx);
      rx_.state = DmaState::kRunning;
    }
    run_rx();
  } else if ((value & kRxSr) == 0 && (old & kRxSr) != 0) {
    if (rx_.state != DmaState::kStopped) {
      rx_.state = DmaState::kStopped;
      raise_status(kRps);
    }
  }
}

void DwmacModel::write_status(std::uint32_t value) {
  std::uint32_t& status = regs_[reg::kCh0Status];
  // docs/hardware/dwmac.md §4.2: every flag is W1C (NIS/AIS too); TEB/REB describe the FBE and go
  // with it.
  std::uint32_t clear = value & kW1c;
  if ((clear & kFbe) != 0) clear |= kTebReb;
  status &= ~clear;
  update_interrupt_line();
}

// ---------------------------------------------------------------- interrupts

void DwmacModel::raise_status(std::uint32_t bits) {
  std::uint32_t& status = regs_[reg::kCh0Status];
  status |= bits;
  // docs/hardware/dwmac.md §4.2: NIS/AIS are sticky summaries of the *enabled* normal/abnormal
  // sources.
  const std::uint32_t pending = status & regs_[reg::kCh0InterruptEnable];
  if ((pending & kNormal) != 0) status |= kNis;
  if ((pending & kAbnormal) != 0) status |= kAis;
  update_interrupt_line();
}

std::uint32_t DwmacModel::dma_interrupt_bits() const {
  const std::uint32_t enable = regs_.at(reg::kCh0InterruptEnable);
  const std::uint32_t pending = regs_.at(reg::kCh0Status) & enable;
  // docs/hardware/dwmac.md §4.2: a source reaches the line only with its own enable and NIE (15) /
  // AIE (14).
  std::uint32_t bits = 0;
  if ((enable & kNis) != 0) bits |= pending & kNormal;
  if ((enable & kAis) != 0) bits |= pending & kAbnormal;
  return bits;
}

// ---------------------------------------------------------------- MMC

void DwmacModel::write_mmc_control(std::uint32_t value) {
  regs_[reg::kMmcControl] = value & kMmcControlKept;
  if ((value & kMmcCntrst) != 0) {
    for (const MmcCounter& c : kMmcCounters) regs_[c.offset] = 0;
  }
  if ((value & kMmcCntprst) != 0) {
    // docs/hardware/dwmac.md §2.4: a preset sets no interrupt bit itself;
    // the next count across half or full scale does.
    const std::uint32_t preset = (value & kMmcCntprstlvl) != 0 ? kMmcAlmostFull : kMmcAlmostHalf;
    for (const MmcCounter& c : kMmcCounters) regs_[c.offset] = preset;
  }
}

void DwmacModel::mmc_count(std::uint32_t offset, std::uint32_t amount) {
  const std::uint32_t control = regs_.at(reg::kMmcControl);
  if ((control & kMmcCntfreez) != 0) return;
  const MmcCounter* counter = mmc_counter(offset);
  const std::uint32_t old = regs_.at(offset);
  std::uint32_t now = old + amount;  // unsigned: rolls over
  const bool wrapped = now < old;
  if (wrapped && (control & kMmcCntstopro) != 0) now = 0xFFFF'FFFF;
  regs_[offset] = now;
  // docs/hardware/dwmac.md §2.4: the interrupt bit is set when the counter
  // reaches half of its maximum and when it reaches the maximum (or rolls
  // over past it), masked or not: the masks only keep it from the MAC's
  // interrupt status and line.
  const bool crossed_half = old < 0x8000'0000 && now >= 0x8000'0000;
  const bool reached_full = now == 0xFFFF'FFFF || wrapped;
  if (crossed_half || reached_full) {
    regs_[counter->interrupt_register] |= counter->interrupt_bit;
    ++counters_.mmc_interrupts;
    update_interrupt_line();
  }
}

std::uint32_t DwmacModel::mac_mmc_status() const {
  const bool rx = (regs_.at(reg::kMmcRxInterrupt) & ~regs_.at(reg::kMmcRxInterruptMask)) != 0;
  const bool tx = (regs_.at(reg::kMmcTxInterrupt) & ~regs_.at(reg::kMmcTxInterruptMask)) != 0;
  const bool ipc =
      (regs_.at(reg::kMmcIpcRxInterrupt) & ~regs_.at(reg::kMmcIpcRxInterruptMask)) != 0;
  std::uint32_t bits = (rx ? kMacMmcRxIs : 0) | (tx ? kMacMmcTxIs : 0) | (ipc ? kMacMmcRxIpIs : 0);
  if (bits != 0) bits |= kMacMmcIs;
  return bits;
}

bool DwmacModel::mac_interrupt_pending() const {
  // docs/hardware/dwmac.md §2.4: MAC_INTERRUPT_ENABLE has no MMC bits: an
  // unmasked MMC interrupt reaches the line whatever it holds. (The model
  // raises no other MAC interrupt.)
  return mac_mmc_status() != 0;
}

void DwmacModel::update_interrupt_line() {
  const bool level = dma_interrupt_bits() != 0 || mac_interrupt_pending();
  if (level == line_) return;
  line_ = level;
  if (line_callback_) line_callback_(level);
}

void DwmacModel::on_interrupt_line(std::function<void(bool level)> callback) {
  line_callback_ = std::move(callback);
}

void DwmacModel::on_transmit(std::function<void(std::span<const std::byte>)> sink) {
  transmit_sink_ = std::move(sink);
}

// ---------------------------------------------------------------- faults

void DwmacModel::inject_fatal_bus_error(Channel channel) {
  (channel == Channel::kTx ? tx_ : rx_).inject_fault = true;
}

void DwmacModel::inject_tx_error(std::uint32_t tdes3_error_bits) {
  // Only the write-back status bits of docs/hardware/dwmac.md §5.2 (not OWN/CTXT/FD/LD/ES itself).
  tx_error_bits_ = tdes3_error_bits & 0x0081'7FFF & ~kTdes3Es;
}

void DwmacModel::inject_dma_fault(DmaFault fault) {
  switch (fault) {
    case DmaFault::kRxWritebackDropped:
      fault_rx_writeback_ = true;
      return;
    case DmaFault::kRxBufferStale:
      fault_rx_buffer_ = true;
      return;
    case DmaFault::kTxDescriptorStale:
      fault_tx_descriptor_ = true;
      return;
  }
}

void DwmacModel::set_tx_stall(bool stalled) {
  tx_stalled_ = stalled;
  if (!stalled) run_tx();
}

void DwmacModel::bus_error(Channel channel, BusAccess access) {
  ++counters_.bus_errors;
  const auto code = static_cast<std::uint32_t>(access);
  DmaChannel& ch = channel == Channel::kTx ? tx_ : rx_;
  ch.state = DmaState::kStopped;
  ch.fatal = true;
  ch.inject_fault = false;
  if (channel == Channel::kTx) {
    tx_frame_.clear();
    tx_in_frame_ = false;
    raise_status(kFbe | kTps | (code << kTebShift));
  } else {
    raise_status(kFbe | kRps | (code << kRebShift));
  }
}

// ---------------------------------------------------------------- rings

std::uint64_t DwmacModel::ring_base(Channel channel) const {
  const bool tx = channel == Channel::kTx;
  return (static_cast<std::uint64_t>(regs_.at(tx ? reg::kCh0TxListHigh : reg::kCh0RxListHigh))
          << 32) |
         regs_.at(tx ? reg::kCh0TxList : reg::kCh0RxList);
}

std::uint32_t DwmacModel::ring_count(Channel channel) const {
  // docs/hardware/dwmac.md §4.1: RING_LENGTH 9:0 holds N - 1.
  return field(regs_.at(channel == Channel::kTx ? reg::kCh0TxRingLength : reg::kCh0RxRingLength), 0,
               10) +
         1;
}

std::uint64_t DwmacModel::ring_stride() const {
  // docs/hardware/dwmac.md §5.6: stride = 16 + DSL x bus width; DSL is DMA_CH0_CONTROL 20:18.
  return kDescriptorBytes + field(regs_.at(reg::kCh0Control), 18, 3) * kBusWidthBytes;
}

std::uint64_t DwmacModel::tail(Channel channel) const {
  const bool tx = channel == Channel::kTx;
  return (static_cast<std::uint64_t>(regs_.at(tx ? reg::kCh0TxListHigh : reg::kCh0RxListHigh))
          << 32) |
         regs_.at(tx ? reg::kCh0TxTail : reg::kCh0RxTail);
}

std::uint64_t DwmacModel::next_descriptor(Channel channel, std::uint64_t current) const {
  const std::uint64_t base = ring_base(channel);
  const std::uint64_t stride = ring_stride();
  if (current < base) return base;
  const std::uint64_t index = (current - base) / stride;
  // docs/hardware/dwmac.md §5.6: wrap after descriptor N - 1 back to the base.
  return index + 1 >= ring_count(channel) ? base : base + (index + 1) * stride;
}

bool DwmacModel::read_descriptor(Channel channel, std::uint64_t address,
                                 std::uint32_t (&words)[4]) {
  DmaChannel& ch = channel == Channel::kTx ? tx_ : rx_;
  if (ch.inject_fault || !dma_.contains(address, kDescriptorBytes)) {
    bus_error(channel, BusAccess::kReadDescriptor);
    return false;
  }
  // Descriptors are little-endian words (docs/hardware/dwmac.md §5), as is the host.
  std::memcpy(words, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address)),
              kDescriptorBytes);
  return true;
}

bool DwmacModel::write_descriptor(Channel channel, std::uint64_t address,
                                  const std::uint32_t (&words)[4]) {
  if (!dma_.contains(address, kDescriptorBytes)) {
    bus_error(channel, BusAccess::kWriteDescriptor);
    return false;
  }
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), words,
              kDescriptorBytes);
  return true;
}

// ---------------------------------------------------------------- transmit

void DwmacModel::run_tx() {
  if (running_tx_) return;  // a transmit sink wrote a register: the outer loop carries on
  running_tx_ = true;
  while (tx_.state == DmaState::kRunning && !tx_stalled_) {
    // docs/hardware/dwmac.md §5.6: the tail is exclusive; reaching it suspends with TBU (R).
    if (tx_.current == tail(Channel::kTx)) {
      tx_.state = DmaState::kSuspended;
      raise_status(kTbu);
      break;
    }
    const std::uint64_t address = tx_.current;
    std::uint32_t w[4];
    if (!read_descriptor(Channel::kTx, address, w)) break;
    if ((w[3] & kOwn) != 0 && std::exchange(fault_tx_descriptor_, false)) {
      ++counters_.dma_faults_injected;
      w[3] &= ~kOwn;  // what the descriptor held before the driver armed it
    }
    if ((w[3] & kOwn) == 0) {
      tx_.state = DmaState::kSuspended;
      raise_status(kTbu);
      break;
    }
    ++counters_.tx_descriptors;
    if ((w[3] & kCtxt) != 0) {
      // docs/hardware/dwmac.md §5.3 context descriptor: consumed, handed back with OWN = 0.
      w[3] &= ~kOwn;
      if (!write_descriptor(Channel::kTx, address, w)) break;
      tx_.current = next_descriptor(Channel::kTx, address);
      continue;
    }
    if ((w[3] & kFd) != 0 || !tx_in_frame_) {
      tx_frame_.clear();
      tx_in_frame_ = true;
      tx_first_tdes3_ = w[3];
    }
    const std::uint32_t lengths[2] = {field(w[2], 0, 14), field(w[2], 16, 14)};
    const std::uint32_t buffers[2] = {w[0], w[1]};
    bool ok = true;
    for (int i = 0; i < 2 && ok; ++i) {
      if (lengths[i] == 0) continue;
      if (!dma_.contains(buffers[i], lengths[i])) {
        bus_error(Channel::kTx, BusAccess::kReadBuffer);
        ok = false;
        break;
      }
      const auto* p = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(buffers[i]));
      tx_frame_.insert(tx_frame_.end(), p, p + lengths[i]);
      regs_[reg::kCh0CurrentTxBuffer] = buffers[i];
    }
    if (!ok) break;
    // Write-back (docs/hardware/dwmac.md §5.2): OWN cleared, FD/LD kept; status only on LD, where
    // ES is set only if an error was injected.
    const bool last = (w[3] & kLd) != 0;
    const bool ioc = (w[2] & kTdes2Ioc) != 0;
    const std::uint32_t errors = last ? tx_error_bits_ : 0;
    w[3] = (w[3] & (kFd | kLd)) | errors | (errors != 0 ? kTdes3Es : 0);
    if (!write_descriptor(Channel::kTx, address, w)) break;
    tx_.current = next_descriptor(Channel::kTx, address);
    if (last) {
      tx_in_frame_ = false;
      tx_error_bits_ = 0;
      if (errors != 0) {
        ++counters_.tx_errors;
        tx_frame_.clear();
      } else {
        finish_tx_frame(tx_first_tdes3_);
      }
      if (ioc)
        raise_status(
            kTi);  // docs/hardware/dwmac.md §5.6: TI at end of frame if IOC on the LD descriptor
    }
  }
  running_tx_ = false;
}

void DwmacModel::finish_tx_frame(std::uint32_t first_tdes3) {
  std::vector<std::byte> frame = std::move(tx_frame_);
  tx_frame_.clear();
  const std::uint32_t cic = field(first_tdes3, kTdes3CicShift, 2);
  // docs/hardware/dwmac.md §5.1 "Checksum insertion needs TSF": without
  // store-and-forward (threshold mode, TTC) the frame may start leaving the
  // FIFO before its end is in it, so the engine cannot write checksums into
  // its headers. The model sends such a frame as given, CIC ignored, and
  // counts it (tx_checksums_bypassed): the databook and the facts say only
  // that insertion cannot happen, nothing of an error or a drop, and Linux
  // simply stops asking (docs/hardware/dwmac.md §10.3). This is the
  // behaviour for every frame length, including frames shorter than TTC
  // (what silicon does with those is unconfirmed, §7.1).
  const bool tsf = (regs_[reg::kMtlTxq0OperationMode] & kTxqTsf) != 0;
  if (cic != 0 && !tsf) ++counters_.tx_checksums_bypassed;
  const L3 l3 = locate_l3(frame);
  if (cic != 0 && tsf && l3.ethertype == 0x0800 && frame.size() >= l3.offset + 20) {
    std::span<std::byte> ip(frame.data() + l3.offset, frame.size() - l3.offset);
    const std::size_t ihl = (static_cast<unsigned>(ip[0]) & 0xF) * 4u;
    const std::size_t total = be16(ip, 2);
    if (ihl >= 20 && total >= ihl && total <= ip.size()) {
      put_be16(ip, 10, 0);
      put_be16(ip, 10, static_cast<std::uint16_t>(~fold(sum16(ip.first(ihl)))));
      const auto protocol = static_cast<std::uint8_t>(ip[9]);
      const std::size_t at = l4_checksum_offset(protocol);
      std::span<std::byte> l4 = ip.subspan(ihl, total - ihl);
      if (cic >= 2 && at != 0 && l4.size() >= at + 2) {
        // CIC 11: the MAC computes the pseudo-header; CIC 10: the driver left
        // the pseudo-header sum in the field (databook), ICMP has none.
        std::uint32_t sum = 0;
        if (cic == 3 || protocol == 1) {
          put_be16(l4, at, 0);
          if (protocol != 1) sum = ipv4_pseudo_sum(ip, protocol, l4.size());
        }
        std::uint16_t checksum = static_cast<std::uint16_t>(~fold(sum16(l4, sum)));
        if (protocol == 17 && checksum == 0) checksum = 0xFFFF;  // RFC 768
        put_be16(l4, at, checksum);
      }
      ++counters_.tx_checksums_inserted;
    }
  }
  // IPv6: no header checksum; TCP, UDP and ICMPv6 right after the fixed
  // header get theirs, over the IPv6 pseudo-header (the engine does IPv6:
  // Linux's stmmac offers NETIF_F_IPV6_CSUM with the TX COE). A packet
  // whose next header is anything else (a fragment header among them) is
  // sent as given.
  if (cic >= 2 && tsf && l3.ethertype == 0x86DD && frame.size() >= l3.offset + 40) {
    std::span<std::byte> ip(frame.data() + l3.offset, frame.size() - l3.offset);
    const auto next_header = static_cast<std::uint8_t>(ip[6]);
    const std::size_t length = be16(ip, 4);
    const std::size_t at = next_header == 58 ? 2 : l4_checksum_offset(next_header);
    if (next_header != 1 && at != 0 && 40 + length <= ip.size() && length >= at + 2) {
      std::span<std::byte> l4 = ip.subspan(40, length);
      std::uint32_t sum = 0;
      if (cic == 3 || next_header == 58) {
        put_be16(l4, at, 0);
        sum = ipv6_pseudo_sum(ip, next_header, l4.size());
      }
      std::uint16_t checksum = static_cast<std::uint16_t>(~fold(sum16(l4, sum)));
      if (next_header == 17 && checksum == 0) checksum = 0xFFFF;  // RFC 8200: never 0
      put_be16(l4, at, checksum);
      ++counters_.tx_checksums_inserted;
    }
  }
  if ((regs_[reg::kMacConfiguration] & kMacTe) == 0) {
    // Transmitter off: the frame waits in the MTL TX FIFO (TXQSTS) until TE.
    tx_fifo_.push_back(std::move(frame));
    return;
  }
  emit(std::move(frame));
}

void DwmacModel::emit(std::vector<std::byte> frame) {
  ++counters_.tx_frames;
  counters_.tx_bytes += frame.size();
  if (std::exchange(damage_next_tx_, false)) {
    ++counters_.frames_damaged_by_speed_change;
    return;  // the partner sees a cut frame with a bad FCS and drops it
  }
  if ((regs_[reg::kMacConfiguration] & kMacLm) != 0) {
    // MAC loopback (LM): the transmit engine's output goes to the receive
    // engine inside the MAC, not to the PHY. The receive side is clocked by
    // clk_rx_i, which only the PHY supplies (the databook's LM note, Linux's
    // stmmac selftests): without it nothing comes back.
    ++counters_.tx_looped_back;
    if (phy_.rx_clock_running()) (void)receive(frame, RxFault{}, /*through_phy=*/false);
    return;
  }
  // On the wire: padded to 60 bytes, plus the FCS the MAC appends.
  mmc_count(reg::kTxPacketCountGoodBad, 1);
  mmc_count(reg::kTxOctetCountGoodBad,
            static_cast<std::uint32_t>(std::max<std::size_t>(frame.size(), 60) + 4));
  // Damaged between the MAC and the PHY (RGMII timing): the link partner
  // sees a bad FCS and drops it; the MAC cannot know.
  if (!phy_.carry_tx_frame()) return;
  if (transmit_sink_) transmit_sink_(frame);
}

// ---------------------------------------------------------------- receive

std::uint32_t DwmacModel::rx_buffer_bytes() const {
  // docs/hardware/dwmac.md §4.1 RBSZ 14:1 holds the byte count (register = size << 1); low bits
  // below the 8-byte bus width are ignored.
  return (field(regs_.at(reg::kCh0RxControl), 1, 14)) &
         ~static_cast<std::uint32_t>(kBusWidthBytes - 1);
}

std::size_t DwmacModel::rx_fifo_capacity() const {
  return static_cast<std::size_t>(128) << options_.fifo_size_field;
}

std::size_t DwmacModel::rx_fifo_bytes() const {
  std::size_t bytes = 0;
  for (const RxFrame& f : rx_fifo_) bytes += f.bytes.size();
  return bytes;
}

bool DwmacModel::accepts(std::span<const std::byte> frame) const {
  const std::uint32_t filter = regs_.at(reg::kMacPacketFilter);
  if ((filter & (kFilterPr | kFilterRa)) != 0) return true;
  const auto dst = frame.first(6);
  if (std::all_of(dst.begin(), dst.end(), [](std::byte b) { return b == std::byte{0xFF}; }))
    return (filter & kFilterDbf) == 0;
  // Multicast: PM passes all; HMC passes a group whose bin is set in the
  // hash table (docs/hardware/dwmac.md §2.1: the upper 6 bits of the
  // bit-reversed CRC-32 of the destination address, as Linux's stmmac
  // computes it); neither drops it.
  if ((static_cast<unsigned>(dst[0]) & 1u) != 0) {
    if ((filter & kFilterPm) != 0) return true;
    if ((filter & kFilterHmc) == 0) return false;
    const unsigned bin = multicast_hash_bin(dst);
    const std::uint32_t table =
        regs_.at(bin < 32 ? reg::kMacHashTableReg0 : reg::kMacHashTableReg1);
    return ((table >> (bin % 32)) & 1u) != 0;
  }
  const std::uint32_t low = regs_.at(reg::kMacAddress0Low);
  const std::uint32_t high = regs_.at(reg::kMacAddress0High);
  // docs/hardware/dwmac.md §2.1: LOW holds addr[0] in 7:0 .. addr[3] in 31:24, HIGH addr[4] |
  // addr[5] << 8.
  const std::array<std::uint8_t, 6> ours = {
      static_cast<std::uint8_t>(low),       static_cast<std::uint8_t>(low >> 8),
      static_cast<std::uint8_t>(low >> 16), static_cast<std::uint8_t>(low >> 24),
      static_cast<std::uint8_t>(high),      static_cast<std::uint8_t>(high >> 8)};
  for (std::size_t i = 0; i < 6; ++i)
    if (static_cast<std::uint8_t>(dst[i]) != ours[i]) return false;
  return true;
}

std::uint32_t DwmacModel::rx_checksum_status(std::span<const std::byte> frame) const {
  // RDES1 (docs/hardware/dwmac.md §5.5) when MAC_CONFIGURATION.IPC is on; `frame` excludes the FCS.
  const L3 l3 = locate_l3(frame);
  if (l3.ethertype == 0x0800 && frame.size() >= l3.offset + 20) {
    const auto ip = frame.subspan(l3.offset);
    const std::size_t ihl = (static_cast<unsigned>(ip[0]) & 0xF) * 4u;
    const std::size_t total = be16(ip, 2);
    std::uint32_t rdes1 = kRdes1Ipv4;
    if (ihl < 20 || ip.size() < ihl || fold(sum16(ip.first(ihl))) != 0xFFFF) rdes1 |= kRdes1Iphe;
    const auto protocol = static_cast<std::uint8_t>(ip[9]);
    const std::uint32_t pt = protocol == 17  ? 1
                             : protocol == 6 ? 2
                             : protocol == 1 ? 3
                             : protocol == 2 ? 4
                                             : 0;
    rdes1 |= pt;
    if ((rdes1 & kRdes1Iphe) != 0 || total < ihl || total > ip.size()) return rdes1;
    const auto l4 = ip.subspan(ihl, total - ihl);
    const std::size_t at = l4_checksum_offset(protocol);
    if (at == 0 || l4.size() < at + 2) return rdes1;
    if (protocol == 17 && be16(l4, at) == 0) return rdes1;  // UDP without checksum
    const std::uint32_t pseudo = protocol == 1 ? 0 : ipv4_pseudo_sum(ip, protocol, l4.size());
    if (fold(sum16(l4, pseudo)) != 0xFFFF) rdes1 |= kRdes1Ipce;
    return rdes1;
  }
  if (l3.ethertype == 0x86DD && frame.size() >= l3.offset + 40) {
    const auto ip = frame.subspan(l3.offset);
    const auto next = static_cast<std::uint8_t>(ip[6]);
    const std::size_t payload = be16(ip, 4);
    std::uint32_t rdes1 = kRdes1Ipv6 | (next == 17 ? 1u : next == 6 ? 2u : 0u);
    if ((next != 17 && next != 6) || 40 + payload > ip.size()) return rdes1;
    const auto l4 = ip.subspan(40, payload);
    if (l4.size() < l4_checksum_offset(next) + 2) return rdes1;
    if (fold(sum16(l4, ipv6_pseudo_sum(ip, next, l4.size()))) != 0xFFFF) rdes1 |= kRdes1Ipce;
    return rdes1;
  }
  return 0;
}

DwmacModel::RxOutcome DwmacModel::receive_from_wire(std::span<const std::byte> frame,
                                                    RxFault fault) {
  return receive(frame, fault, /*through_phy=*/true);
}

DwmacModel::RxOutcome DwmacModel::receive(std::span<const std::byte> frame, RxFault fault,
                                          bool through_phy) {
  const std::uint32_t config = regs_[reg::kMacConfiguration];
  if (in_reset() || (config & kMacRe) == 0 ||
      field(regs_[reg::kMacRxqCtrl0], 0, 2) != kRxq0EnGeneric || frame.size() < 14) {
    // docs/hardware/dwmac.md §2.1 RXQ_CTRL0: queue 0 must be enabled (2 = DCB/generic) or nothing
    // is received.
    ++counters_.rx_dropped_off;
    return RxOutcome::kDroppedOff;
  }
  // Every frame the receiver takes in counts, filtered or not; the wire
  // frame here has no FCS.
  mmc_count(reg::kRxPacketsCountGoodBad, 1);
  mmc_count(reg::kRxOctetCountGoodBad, static_cast<std::uint32_t>(frame.size() + 4));
  if (!accepts(frame)) {
    ++counters_.rx_dropped_filtered;
    return RxOutcome::kDroppedFiltered;
  }
  // Damaged between the PHY and the MAC (RGMII timing): a CRC error.
  if (through_phy && !phy_.carry_rx_frame()) fault.crc_error = true;
  if (std::exchange(damage_next_rx_, false)) {
    ++counters_.frames_damaged_by_speed_change;
    fault.crc_error = true;
  }
  RxFrame stored;
  if (fault.crc_error) stored.error_bits |= kRdes3Ce;
  if (fault.receive_error) stored.error_bits |= kRdes3Re;
  if (fault.giant) stored.error_bits |= kRdes3Gp;
  if (fault.overflow) stored.error_bits |= kRdes3Oe;
  const std::uint32_t rxq = regs_[reg::kMtlRxq0OperationMode];
  if (stored.error_bits != 0 && (rxq & kRxqFep) == 0) {
    // docs/hardware/dwmac.md §3.1 FEP clear: the MTL drops error frames,
    // except in threshold mode (RSF clear) one whose start had already gone
    // on to the DMA when its error showed (databook, FEP: "if the start
    // byte (write) pointer of a packet is already transferred to the read
    // controller side (in Threshold mode), the packet is not dropped";
    // docs/hardware/dwmac.md §10.3). The model takes that to be any frame
    // longer than RTC bytes (FCS not counted), whatever the DMA is doing.
    const bool started = (rxq & kRxqRsf) == 0 && frame.size() > rx_threshold_bytes(rxq);
    if (!started) {
      ++counters_.rx_dropped_error;
      return RxOutcome::kDroppedError;
    }
    ++counters_.rx_error_frames_cut_through;
  }
  stored.bytes.assign(frame.begin(), frame.end());
  // docs/hardware/dwmac.md §2.1, §5.5: CST strips the FCS of type frames, ACS of length frames (pad
  // stripping not modelled); otherwise the FCS is stored and counted in PL.
  const bool type_frame = locate_l3(frame).ethertype >= 0x0600;
  if ((config & (type_frame ? kMacCst : kMacAcs)) == 0) {
    std::uint32_t fcs = crc32(frame);
    if (fault.crc_error) fcs = ~fcs;
    for (int i = 0; i < 4; ++i) stored.bytes.push_back(static_cast<std::byte>(fcs >> (8 * i)));
  }
  if (rx_fifo_bytes() + stored.bytes.size() > rx_fifo_capacity()) {
    // docs/hardware/dwmac.md §4.1 MISS_FRAME_CNT: MFC counts to 2047, then MFCO stays set.
    std::uint32_t& miss = regs_[reg::kCh0MissFrameCount];
    if ((miss & kMfcMax) == kMfcMax) {
      miss |= kMfco;
    } else {
      ++miss;
    }
    ++counters_.rx_dropped_fifo_full;
    return RxOutcome::kDroppedFifoFull;
  }
  rx_fifo_.push_back(std::move(stored));
  run_rx();
  // The FIFO is in order: the frame went out iff everything did.
  if (rx_fifo_.empty()) return RxOutcome::kDelivered;
  ++counters_.rx_queued;
  return RxOutcome::kQueued;
}

void DwmacModel::run_rx() {
  if (running_rx_) return;
  running_rx_ = true;
  while (rx_.state == DmaState::kRunning && !rx_fifo_.empty()) {
    if (!deliver_rx(rx_fifo_.front())) break;
    rx_fifo_.pop_front();
  }
  running_rx_ = false;
}

bool DwmacModel::deliver_rx(const RxFrame& frame) {
  const std::uint32_t buffer_bytes = rx_buffer_bytes();
  if (buffer_bytes == 0) return false;  // RBSZ unprogrammed: the frame waits
  // First find every descriptor the frame needs, so that a frame is written
  // whole or not at all (the hardware may write part of it before it runs out
  // of descriptors; the driver cannot tell the difference before LD).
  struct Slot {
    std::uint64_t address;
    std::uint32_t words[4];
  };
  std::vector<Slot> slots;
  std::size_t remaining = frame.bytes.size();
  std::uint64_t address = rx_.current;
  const std::uint32_t count = ring_count(Channel::kRx);
  while (true) {
    // docs/hardware/dwmac.md §5.6: tail exclusive; OWN = 0 or the tail with a frame pending -> RBU,
    // suspended.
    if (address == tail(Channel::kRx) || slots.size() >= count) {
      rx_.state = DmaState::kSuspended;
      raise_status(kRbu);
      return false;
    }
    Slot slot{address, {}};
    if (!read_descriptor(Channel::kRx, address, slot.words)) return false;
    if ((slot.words[3] & kOwn) == 0) {
      rx_.state = DmaState::kSuspended;
      raise_status(kRbu);
      return false;
    }
    std::size_t capacity = 0;
    if ((slot.words[3] & kRdes3Buf1v) != 0) capacity += buffer_bytes;
    if ((slot.words[3] & kRdes3Buf2v) != 0) capacity += buffer_bytes;
    remaining -= std::min(remaining, capacity);
    slots.push_back(slot);
    if (remaining == 0) break;
    address = next_descriptor(Channel::kRx, address);
  }

  const bool ipc = (regs_[reg::kMacConfiguration] & kMacIpc) != 0;
  const std::size_t total = frame.bytes.size();
  const bool drop_writeback = std::exchange(fault_rx_writeback_, false);
  const bool stale_buffer = std::exchange(fault_rx_buffer_, false);
  if (drop_writeback || stale_buffer) ++counters_.dma_faults_injected;
  std::size_t done = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    Slot& slot = slots[i];
    const bool first = i == 0;
    const bool last = i + 1 == slots.size();
    const bool ioc = (slot.words[3] & kRdes3Ioc) != 0;
    const std::uint32_t buffers[2] = {(slot.words[3] & kRdes3Buf1v) != 0 ? slot.words[0] : 0u,
                                      (slot.words[3] & kRdes3Buf2v) != 0 ? slot.words[2] : 0u};
    const bool valid[2] = {(slot.words[3] & kRdes3Buf1v) != 0, (slot.words[3] & kRdes3Buf2v) != 0};
    for (int b = 0; b < 2; ++b) {
      if (!valid[b] || done == total) continue;
      const std::size_t chunk = std::min<std::size_t>(buffer_bytes, total - done);
      if (!dma_.contains(buffers[b], chunk)) {
        bus_error(Channel::kRx, BusAccess::kWriteBuffer);
        return false;
      }
      if (!stale_buffer) {
        std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(buffers[b])),
                    frame.bytes.data() + done, chunk);
      }
      regs_[reg::kCh0CurrentRxBuffer] = buffers[b];
      done += chunk;
    }
    // docs/hardware/dwmac.md §5.5 write-back: RDES0..2 are status now, not the buffer addresses.
    std::uint32_t wb[4] = {0, 0, 0, 0};
    wb[3] = (first ? kFd : 0);
    if (last) {
      wb[3] |= kLd | static_cast<std::uint32_t>(total & kRdes3PlMask) | frame.error_bits;
      if (frame.error_bits != 0) wb[3] |= kRdes3Es;  // ES = OR of the error bits
      const std::size_t fcs = total >= 4 ? 4 : 0;
      const std::span<const std::byte> bytes(frame.bytes.data(), total);
      const L3 l3 = locate_l3(bytes);
      wb[3] |= (l3.ethertype >= 0x0600 ? 1u : 0u) << kRdes3LtShift;  // LT: 1 type, 0 length
      if (ipc) {
        // Checksums are over the frame without the FCS, if it was kept.
        const bool fcs_kept =
            (regs_[reg::kMacConfiguration] & (l3.ethertype >= 0x0600 ? kMacCst : kMacAcs)) == 0;
        wb[1] = rx_checksum_status(bytes.first(total - (fcs_kept ? fcs : 0)));
        if (wb[1] != 0) wb[3] |= kRdes3Rs1v;
      }
    } else {
      // Not LD: PL is the byte count transferred so far (databook via Zephyr,
      // which derives per-buffer lengths from it; unconfirmed).
      wb[3] |= static_cast<std::uint32_t>(done & kRdes3PlMask);
    }
    if (!drop_writeback && !write_descriptor(Channel::kRx, slot.address, wb)) return false;
    ++counters_.rx_descriptors;
    rx_.current = next_descriptor(Channel::kRx, slot.address);
    if (last) {
      ++counters_.rx_delivered;
      if (ioc)
        raise_status(
            kRi);  // docs/hardware/dwmac.md §5.6: RI at end of frame if IOC on the LD descriptor
    }
  }
  return true;
}

}  // namespace starling::model
