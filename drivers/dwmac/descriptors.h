#ifndef STARLING_DRIVERS_DWMAC_DESCRIPTORS_H_
#define STARLING_DRIVERS_DWMAC_DESCRIPTORS_H_

#include <cstdint>

// Normal (not context) descriptors, 16 bytes, four little-endian words, as
// docs/hardware/dwmac.md §5 gives them for EQoS 5.x. Do not take these from the old
// GMAC 3.x layouts (lengths at 29:16 there).
//
// The DMA engine reads and writes these words while the CPU does: every
// access is a relaxed atomic 32-bit access (no torn or cached words, no data
// race for the sanitizers), and the ordering at each hand-off is an explicit
// fence from barrier.h next to it.
namespace starling::dwmac {

struct alignas(16) Descriptor {
  std::uint32_t word[4];

  std::uint32_t load(int i) const { return __atomic_load_n(&word[i], __ATOMIC_RELAXED); }
  void store(int i, std::uint32_t value) { __atomic_store_n(&word[i], value, __ATOMIC_RELAXED); }
};
static_assert(sizeof(Descriptor) == 16);

namespace desc {

constexpr std::uint32_t bit(unsigned n) {
  return std::uint32_t{1} << n;
}

// DES3 of every format: OWN = the DMA's.
inline constexpr std::uint32_t kOwn = bit(31);
inline constexpr std::uint32_t kContext = bit(30);
inline constexpr std::uint32_t kFirst = bit(29);
inline constexpr std::uint32_t kLast = bit(28);

// --- TX read format (driver -> DMA) ---
// TDES2
inline constexpr std::uint32_t kTxIoc = bit(31);
inline constexpr std::uint32_t kTxBuffer1LengthMask = 0x3FFF;  // 13:0
// TDES3
inline constexpr std::uint32_t kTxFrameLengthMask = 0x7FFF;  // 14:0
// CIC 17:16 = 11: IP header, payload and pseudo-header checksums inserted.
inline constexpr std::uint32_t kTxChecksumFull = 3u << 16;
// CIC 17:16 = 01: the IP header checksum only (for IP fragments).
inline constexpr std::uint32_t kTxChecksumIpHeader = 1u << 16;

// --- TX write-back (TDES3, valid on the LD descriptor) ---
inline constexpr std::uint32_t kTxErrorSummary = bit(15);

// --- RX read format (driver -> DMA) ---
// RDES0 = buffer 1 address, RDES1 reserved (upper address bits), RDES2 =
// buffer 2 address.
inline constexpr std::uint32_t kRxBuffer1Valid = bit(24);
inline constexpr std::uint32_t kRxIoc = bit(30);

// --- RX write-back: RDES0..2 are overwritten (buffer addresses gone) ---
// RDES1
inline constexpr std::uint32_t kRxPayloadTypeMask = 0x7;  // 2:0 PT
inline constexpr std::uint32_t kRxPayloadUdp = 1;
inline constexpr std::uint32_t kRxPayloadTcp = 2;
inline constexpr std::uint32_t kRxIpHeaderError = bit(3);
inline constexpr std::uint32_t kRxIpv4 = bit(4);
inline constexpr std::uint32_t kRxIpv6 = bit(5);
inline constexpr std::uint32_t kRxChecksumBypassed = bit(6);
inline constexpr std::uint32_t kRxPayloadChecksumError = bit(7);
// RDES3
inline constexpr std::uint32_t kRxPacketLengthMask = 0x7FFF;  // 14:0, on LD
inline constexpr std::uint32_t kRxErrorSummary = bit(15);
inline constexpr std::uint32_t kRxCrcError = bit(24);
inline constexpr std::uint32_t kRxRdes1Valid = bit(26);

}  // namespace desc
}  // namespace starling::dwmac

#endif  // STARLING_DRIVERS_DWMAC_DESCRIPTORS_H_
