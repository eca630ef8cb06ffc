#ifndef STARLING_DRIVERS_DWMAC_REGISTERS_H_
#define STARLING_DRIVERS_DWMAC_REGISTERS_H_

#include <cstdint>

// DWC Ethernet QoS 5.10a / 5.20 register offsets and bit fields: the subset
// this driver programs, as docs/hardware/dwmac.md §2-§4 gives them (every offset is from
// the block base; all registers 32 bits). Only DMA channel 0 and MTL queue 0
// are used.
namespace starling::dwmac::reg {

constexpr std::uint32_t bit(unsigned n) {
  return std::uint32_t{1} << n;
}
constexpr std::uint32_t field(std::uint32_t value, unsigned shift) {
  return value << shift;
}

// --- MAC (docs/hardware/dwmac.md §2) ---
inline constexpr std::uint32_t kMacConfiguration = 0x000;
namespace mac_config {
inline constexpr std::uint32_t kRe = bit(0);    // receiver enable
inline constexpr std::uint32_t kTe = bit(1);    // transmitter enable
inline constexpr std::uint32_t kLm = bit(12);   // loopback: TX engine into RX engine
inline constexpr std::uint32_t kDm = bit(13);   // full duplex
inline constexpr std::uint32_t kFes = bit(14);  // speed: 100 (with PS) / 2500
inline constexpr std::uint32_t kPs = bit(15);   // port select: 10/100
inline constexpr std::uint32_t kJd = bit(17);   // jabber disable
inline constexpr std::uint32_t kWd = bit(19);   // watchdog disable
inline constexpr std::uint32_t kAcs = bit(20);  // strip pad/FCS of length frames
inline constexpr std::uint32_t kCst = bit(21);  // strip FCS of type frames
inline constexpr std::uint32_t kIpc = bit(27);  // RX checksum offload
inline constexpr std::uint32_t kSpeedMask = kPs | kFes | kDm;
}  // namespace mac_config

inline constexpr std::uint32_t kMacPacketFilter = 0x008;
namespace packet_filter {
inline constexpr std::uint32_t kPr = bit(0);   // promiscuous
inline constexpr std::uint32_t kHmc = bit(2);  // multicast through the hash filter
inline constexpr std::uint32_t kPm = bit(4);   // pass all multicast
}  // namespace packet_filter
// The multicast hash filter's 64 bins (HW_FEATURE1 HASHTBLSZ = 1 on the
// JH7110, `snps,multicast-filter-bins = <64>`): bins 0-31, then 32-63.
inline constexpr std::uint32_t kMacHashTableReg0 = 0x010;
inline constexpr std::uint32_t kMacHashTableReg1 = 0x014;
inline constexpr std::uint32_t kMacQ0TxFlowCtrl = 0x070;
inline constexpr std::uint32_t kMacRxFlowCtrl = 0x090;
inline constexpr std::uint32_t kMacRxqCtrl0 = 0x0A0;
// RXQ0EN = 10 (DCB/generic): queue 0 must be on or nothing is received.
inline constexpr std::uint32_t kRxq0EnableGeneric = 2;
inline constexpr std::uint32_t kMacInterruptStatus = 0x0B0;
inline constexpr std::uint32_t kMacInterruptEnable = 0x0B4;
inline constexpr std::uint32_t kMacVersion = 0x110;
// MAC_DEBUG: RPESTS (0) and TPESTS (16), the MII receive and transmit
// protocol engines busy (Linux's dwmac4_debug reads the same bits).
inline constexpr std::uint32_t kMacDebug = 0x114;
namespace mac_debug {
inline constexpr std::uint32_t kRpests = bit(0);
inline constexpr std::uint32_t kTpests = bit(16);
}  // namespace mac_debug
inline constexpr std::uint32_t kSnpsVerMask = 0xFF;  // 7:0 SNPSVER
inline constexpr std::uint32_t kMacHwFeature0 = 0x11C;
namespace hw_feature0 {
inline constexpr std::uint32_t kTxCoe = bit(14);
inline constexpr std::uint32_t kRxCoe = bit(16);
}  // namespace hw_feature0
inline constexpr std::uint32_t kMacHwFeature1 = 0x120;
namespace hw_feature1 {
// FIFO bytes = 128 << field.
constexpr std::uint32_t rx_fifo_bytes(std::uint32_t v) {
  return 128u << (v & 0x1F);
}
constexpr std::uint32_t tx_fifo_bytes(std::uint32_t v) {
  return 128u << ((v >> 6) & 0x1F);
}
}  // namespace hw_feature1
inline constexpr std::uint32_t kMacHwFeature2 = 0x124;
inline constexpr std::uint32_t kMacHwFeature3 = 0x128;

inline constexpr std::uint32_t kMacMdioAddress = 0x200;
namespace mdio_address {
inline constexpr std::uint32_t kGb = bit(0);  // busy: set to start, hardware clears
inline constexpr std::uint32_t kC45e = bit(1);
inline constexpr unsigned kGocShift = 2;  // 01 write, 11 read
inline constexpr std::uint32_t kGocWrite = 1;
inline constexpr std::uint32_t kGocRead = 3;
inline constexpr unsigned kCrShift = 8;    // 11:8 CSR clock range
inline constexpr unsigned kRdaShift = 16;  // 20:16 register
inline constexpr unsigned kPaShift = 21;   // 25:21 PHY address
}  // namespace mdio_address
inline constexpr std::uint32_t kMacMdioData = 0x204;

// Address filter 0: HIGH = addr[4] | addr[5] << 8 | AE; LOW = addr[0..3].
inline constexpr std::uint32_t kMacAddress0High = 0x300;
inline constexpr std::uint32_t kMacAddress0Low = 0x304;
inline constexpr std::uint32_t kAddressEnable = bit(31);

// --- MMC statistics counters (docs/hardware/dwmac.md §2.4) ---
// Their interrupts reset enabled and MAC_INTERRUPT_ENABLE cannot hold them
// back: only these masks can. All ones masks every counter.
inline constexpr std::uint32_t kMmcRxInterruptMask = 0x70C;
inline constexpr std::uint32_t kMmcTxInterruptMask = 0x710;
inline constexpr std::uint32_t kMmcIpcRxInterruptMask = 0x800;
inline constexpr std::uint32_t kMmcMaskAll = 0xFFFF'FFFF;

// --- MTL (docs/hardware/dwmac.md §3) ---
inline constexpr std::uint32_t kMtlOperationMode = 0xC00;
inline constexpr std::uint32_t kMtlRxqDmaMap0 = 0xC30;
inline constexpr std::uint32_t kMtlTxq0OperationMode = 0xD00;
namespace mtl_txq {
inline constexpr std::uint32_t kFtq = bit(0);
inline constexpr std::uint32_t kTsf = bit(1);
inline constexpr std::uint32_t kTxqEnabled = field(2, 2);  // TXQEN = 10
inline constexpr unsigned kTqsShift = 16;                  // 24:16 bytes/256 - 1
// 6:4 TTC, the threshold used while TSF is clear: 0-7 = 32, 64, 96, 128,
// 192, 256, 384, 512 bytes. A count between two rounds up, one above 512
// gives 512 (Linux's dwmac4_dma_tx_chan_op_mode does the same).
constexpr std::uint32_t ttc(std::uint32_t bytes) {
  constexpr std::uint32_t kBytes[] = {32, 64, 96, 128, 192, 256, 384};
  std::uint32_t code = 0;
  while (code < 7 && bytes > kBytes[code]) ++code;
  return field(code, 4);
}
}  // namespace mtl_txq
inline constexpr std::uint32_t kMtlTxq0Debug = 0xD08;
inline constexpr std::uint32_t kMtlQ0InterruptControlStatus = 0xD2C;
inline constexpr std::uint32_t kMtlRxq0OperationMode = 0xD30;
namespace mtl_rxq {
// FUP/FEP at 3/4 per most sources (one HAL says 4/6; docs/hardware/dwmac.md §3.2, unconfirmed).
inline constexpr std::uint32_t kFup = bit(3);
inline constexpr std::uint32_t kFep = bit(4);  // forward error frames to the DMA
inline constexpr std::uint32_t kRsf = bit(5);
inline constexpr unsigned kRqsShift = 20;  // 29:20 bytes/256 - 1
// 1:0 RTC, the threshold used while RSF is clear: 0 = 64, 1 = 32, 2 = 96,
// 3 = 128 bytes (not in order). A count between two rounds up, one above 128
// gives 128 (Linux's dwmac4_dma_rx_chan_op_mode does the same).
constexpr std::uint32_t rtc(std::uint32_t bytes) {
  return bytes <= 32 ? 1 : bytes <= 64 ? 0 : bytes <= 96 ? 2 : 3;
}
}  // namespace mtl_rxq
inline constexpr std::uint32_t kMtlRxq0Debug = 0xD38;

// --- DMA (docs/hardware/dwmac.md §4) ---
inline constexpr std::uint32_t kDmaMode = 0x1000;
namespace dma_mode {
inline constexpr std::uint32_t kSwr = bit(0);    // self-clearing soft reset
inline constexpr std::uint32_t kDche = bit(19);  // descriptor prefetch, >= 5.20
}  // namespace dma_mode
inline constexpr std::uint32_t kDmaSysbusMode = 0x1004;
namespace sysbus {
inline constexpr std::uint32_t kFb = bit(0);
inline constexpr std::uint32_t kBlen4 = bit(1);
inline constexpr std::uint32_t kBlen8 = bit(2);
inline constexpr std::uint32_t kBlen16 = bit(3);
inline constexpr std::uint32_t kBlen32 = bit(4);
inline constexpr std::uint32_t kBlen64 = bit(5);
inline constexpr std::uint32_t kBlen128 = bit(6);
inline constexpr std::uint32_t kBlen256 = bit(7);
inline constexpr std::uint32_t kEame = bit(11);
inline constexpr std::uint32_t kAal = bit(12);
inline constexpr std::uint32_t kEnLpi = bit(31);
// BLENn for every burst length n = 4, 8, ..., 256 with lo <= n <= hi.
constexpr std::uint32_t blen(std::uint32_t lo, std::uint32_t hi) {
  std::uint32_t bits = 0;
  for (unsigned b = 1; b <= 7; ++b) {
    const std::uint32_t beats = 2u << b;  // bit 1 = 4 beats .. bit 7 = 256
    if (beats >= lo && beats <= hi) bits |= bit(b);
  }
  return bits;
}
// The limit fields hold requests in flight - 1 (databook: "maximum
// outstanding requests = RD_OSR_LMT + 1"; docs/hardware/dwmac.md §10.2).
constexpr std::uint32_t rd_osr_limit(std::uint32_t n) {
  return field(n & 0xF, 16);
}
constexpr std::uint32_t wr_osr_limit(std::uint32_t n) {
  return field(n & 0xF, 24);
}
}  // namespace sysbus
inline constexpr std::uint32_t kDmaInterruptStatus = 0x1008;
// DMA_DEBUG_STATUS0: 11:8 RPS0 and 15:12 TPS0, channel 0's receive and
// transmit process states (0 stopped; the rest docs/hardware/dwmac.md §4.1).
inline constexpr std::uint32_t kDmaDebugStatus0 = 0x100C;

inline constexpr std::uint32_t kDmaCh0Control = 0x1100;
namespace ch_control {
inline constexpr std::uint32_t kPblx8 = bit(16);
inline constexpr unsigned kDslShift = 18;  // 20:18 descriptor skip length
}  // namespace ch_control
inline constexpr std::uint32_t kDmaCh0TxControl = 0x1104;
namespace ch_tx_control {
inline constexpr std::uint32_t kSt = bit(0);
inline constexpr std::uint32_t kOsf = bit(4);
constexpr std::uint32_t txpbl(std::uint32_t pbl) {
  return field(pbl & 0x3F, 16);
}
}  // namespace ch_tx_control
inline constexpr std::uint32_t kDmaCh0RxControl = 0x1108;
namespace ch_rx_control {
inline constexpr std::uint32_t kSr = bit(0);
// RBSZ occupies 14:1 and holds the size in bytes: the register value is
// bytes << 1 (docs/hardware/dwmac.md §4.1).
constexpr std::uint32_t rbsz(std::uint32_t bytes) {
  return field(bytes & 0x3FFF, 1);
}
constexpr std::uint32_t rxpbl(std::uint32_t pbl) {
  return field(pbl & 0x3F, 16);
}
}  // namespace ch_rx_control
inline constexpr std::uint32_t kDmaCh0TxDescListHigh = 0x1110;
inline constexpr std::uint32_t kDmaCh0TxDescListAddress = 0x1114;
inline constexpr std::uint32_t kDmaCh0RxDescListHigh = 0x1118;
inline constexpr std::uint32_t kDmaCh0RxDescListAddress = 0x111C;
inline constexpr std::uint32_t kDmaCh0TxDescTailPointer = 0x1120;
inline constexpr std::uint32_t kDmaCh0RxDescTailPointer = 0x1128;
inline constexpr std::uint32_t kDmaCh0TxDescRingLength = 0x112C;  // N - 1
inline constexpr std::uint32_t kDmaCh0RxDescRingLength = 0x1130;  // N - 1
inline constexpr std::uint32_t kDmaCh0InterruptEnable = 0x1134;
inline constexpr std::uint32_t kDmaCh0RxWatchdog = 0x1138;
inline constexpr std::uint32_t kDmaCh0CurrentTxDesc = 0x1144;
inline constexpr std::uint32_t kDmaCh0CurrentRxDesc = 0x114C;
inline constexpr std::uint32_t kDmaCh0CurrentTxBuffer = 0x1154;
inline constexpr std::uint32_t kDmaCh0CurrentRxBuffer = 0x115C;
inline constexpr std::uint32_t kDmaCh0Status = 0x1160;
inline constexpr std::uint32_t kDmaCh0MissFrameCount = 0x1164;

// DMA_CH0_STATUS bits (write 1 to clear) and the DMA_CH0_INTERRUPT_ENABLE
// bit at the same position (docs/hardware/dwmac.md §4.2). NIE/AIE are 15/14 on EQoS >= 4.10,
// not Linux's 4.00 positions; TXSE is bit 1 and TBUE bit 2.
namespace dma_status {
inline constexpr std::uint32_t kTi = bit(0);
inline constexpr std::uint32_t kTps = bit(1);
inline constexpr std::uint32_t kTbu = bit(2);
inline constexpr std::uint32_t kRi = bit(6);
inline constexpr std::uint32_t kRbu = bit(7);
inline constexpr std::uint32_t kRps = bit(8);
inline constexpr std::uint32_t kRwt = bit(9);
inline constexpr std::uint32_t kEti = bit(10);
inline constexpr std::uint32_t kEri = bit(11);
inline constexpr std::uint32_t kFbe = bit(12);
inline constexpr std::uint32_t kCde = bit(13);
inline constexpr std::uint32_t kAis = bit(14);
inline constexpr std::uint32_t kNis = bit(15);
// Every write-1-to-clear flag (the TEB/REB error codes above are read-only).
inline constexpr std::uint32_t kAllFlags = 0xFFFF;
constexpr std::uint32_t tx_error_bits(std::uint32_t s) {
  return (s >> 16) & 7;
}
constexpr std::uint32_t rx_error_bits(std::uint32_t s) {
  return (s >> 19) & 7;
}
}  // namespace dma_status

}  // namespace starling::dwmac::reg

#endif  // STARLING_DRIVERS_DWMAC_REGISTERS_H_
