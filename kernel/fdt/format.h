#ifndef STARLING_KERNEL_FDT_FORMAT_H_
#define STARLING_KERNEL_FDT_FORMAT_H_

#include <cstddef>
#include <cstdint>

// The flattened device tree format, from the Devicetree Specification v0.4,
// chapter 5. Only facts about the bytes live here; DeviceTree interprets them.
namespace starling::fdt {

inline constexpr std::uint32_t kMagic = 0xd00dfeed;

// We read version 17 blobs and anything newer that declares itself
// backwards compatible with 16 (§5.2: last_comp_version).
inline constexpr std::uint32_t kMinVersion = 16;
inline constexpr std::uint32_t kCompatibleVersion = 16;

// Byte offsets of the header fields (§5.2), all big-endian u32.
enum class HeaderField : std::size_t {
  kMagic = 0,
  kTotalSize = 4,
  kOffDtStruct = 8,
  kOffDtStrings = 12,
  kOffMemRsvmap = 16,
  kVersion = 20,
  kLastCompVersion = 24,
  kBootCpuidPhys = 28,
  kSizeDtStrings = 32,
  kSizeDtStruct = 36,  // version 17 and later only
};

// A version 16 header stops before size_dt_struct; version 17 adds it.
inline constexpr std::size_t kHeaderSizeV16 = 36;
inline constexpr std::size_t kHeaderSizeV17 = 40;

// Structure block tokens (§5.4.1), big-endian u32, each 4-byte aligned.
enum class Token : std::uint32_t {
  kBeginNode = 1,  // followed by the NUL-terminated node name, padded to 4
  kEndNode = 2,
  kProp = 3,  // followed by u32 len, u32 nameoff, then len bytes padded to 4
  kNop = 4,
  kEnd = 9,
};

inline constexpr std::size_t kTokenSize = 4;
inline constexpr std::size_t kStructAlignment = 4;
// §5.3.1: the reservation block is 8-byte aligned; entries are (u64, u64).
inline constexpr std::size_t kMemRsvAlignment = 8;
inline constexpr std::size_t kMemRsvEntrySize = 16;

// Every node name lives on the stack of a walk: trees from QEMU and U-Boot
// nest fewer than 8 deep, and a hostile blob must not make a walk unbounded.
inline constexpr std::size_t kMaxDepth = 32;

// §2.3.5: defaults when a parent has no #address-cells / #size-cells.
inline constexpr std::uint32_t kDefaultAddressCells = 2;
inline constexpr std::uint32_t kDefaultSizeCells = 1;

}  // namespace starling::fdt

#endif  // STARLING_KERNEL_FDT_FORMAT_H_
