#ifndef STARLING_PLATFORM_STAR64_JH7110_MAP_H_
#define STARLING_PLATFORM_STAR64_JH7110_MAP_H_

#include <cstddef>
#include <cstdint>

// Where the JH7110's blocks that Starling drives sit, and how large their
// register windows are (docs/hardware/jh7110.md; the `reg` of each node in
// Linux's and U-Boot's jh7110.dtsi). One place for the addresses: the
// drivers' set-up reads them from here, and the board maps exactly these
// when paging is on (board.cc, device_regions()).
namespace starling::board::jh7110 {

inline constexpr std::uintptr_t kPlicBase = 0x0C00'0000;
// The PLIC's priorities, pending and enable bits, and the threshold and
// claim registers of contexts 0-8 (0x200000 + 0x1000 * context): its first 4 MiB.
inline constexpr std::size_t kPlicMappedBytes = 0x40'0000;
inline constexpr std::uintptr_t kUart0Base = 0x1000'0000;
inline constexpr std::size_t kUart0Bytes = 0x1'0000;
inline constexpr std::uintptr_t kStgCrgBase = 0x1023'0000;
inline constexpr std::size_t kStgCrgBytes = 0x1'0000;
inline constexpr std::uintptr_t kSysCrgBase = 0x1302'0000;
inline constexpr std::size_t kSysCrgBytes = 0x1'0000;
inline constexpr std::uintptr_t kTrngBase = 0x1600'C000;
inline constexpr std::size_t kTrngBytes = 0x4000;
inline constexpr std::uintptr_t kGmac0Base = 0x1603'0000;
inline constexpr std::size_t kGmac0Bytes = 0x1'0000;
inline constexpr std::uintptr_t kAonCrgBase = 0x1700'0000;
inline constexpr std::size_t kAonCrgBytes = 0x1'0000;
inline constexpr std::uintptr_t kAonSysconBase = 0x1701'0000;
inline constexpr std::size_t kAonSysconBytes = 0x1000;

}  // namespace starling::board::jh7110

#endif  // STARLING_PLATFORM_STAR64_JH7110_MAP_H_
