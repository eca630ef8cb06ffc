#ifndef STARLING_KERNEL_FDT_FORMAT_H_
#define STARLING_KERNEL_FDT_FORMAT_H_

#include <cstddef>
#include <cstdint>

// Facts of the flattened device tree format (Devicetree Specification v0.4,
// chapter 5) that Starling's rules on top of libfdt use; libfdt's fdt.h has
// the rest (tokens, header layout).
namespace starling::fdt {

// We read version 17 blobs and anything newer that declares itself
// backwards compatible with 16 (§5.2: last_comp_version).
inline constexpr std::uint32_t kMinVersion = 16;
inline constexpr std::uint32_t kCompatibleVersion = 16;

// A version 16 header stops before size_dt_struct (version 17 adds it).
inline constexpr std::size_t kHeaderSizeV16 = 36;

// Structure block tokens are 4-byte aligned; the reservation block (§5.3.1)
// and the blob itself 8-byte aligned, with (u64, u64) entries.
inline constexpr std::size_t kStructAlignment = 4;
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
