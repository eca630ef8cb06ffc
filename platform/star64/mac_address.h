#ifndef STARLING_PLATFORM_STAR64_MAC_ADDRESS_H_
#define STARLING_PLATFORM_STAR64_MAC_ADDRESS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kernel/fdt/device_tree.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"

// GMAC0's MAC address. After U-Boot the MAC's own address registers are
// wiped (it leaves GMAC0 in reset), so the address comes from, in order:
//   1. the kernel command line: `starling.mac=6c:cf:39:00:12:34` among
//      space-separated others (/chosen/bootargs, U-Boot's `setenv bootargs`);
//   2. the device tree: `local-mac-address` (or `mac-address`) of the node
//      /aliases/ethernet0 names, else of /soc/ethernet@16030000. U-Boot
//      fills it in from the board's EEPROM when it passes its own DT;
//   3. kDefaultMac.
namespace starling::board {

// One real Star64's port-0 address (the one sDDF hard-codes; docs/hardware/jh7110.md §10).
// Star64s are 6c:cf:39:00:xx:yy with xx:yy derived from the serial number,
// and several units share serials: two boards on one segment both running
// on the default collide. Set starling.mac= (or boot with U-Boot's DT) then.
inline constexpr hal::MacAddress kDefaultMac{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b}};

inline constexpr std::string_view kGmac0Alias = "ethernet0";
inline constexpr std::string_view kGmac0Path = "/soc/ethernet@16030000";
inline constexpr std::string_view kMacBootarg = "starling.mac=";

// Why a `starling.mac=` value was refused.
enum class MacError : std::uint8_t {
  kNone,
  kMalformed,  // not six two-digit hex bytes separated by ':'
  kMulticast,  // the first byte's low bit is set: not a station address
  kZero,       // 00:00:00:00:00:00
  kDuplicate,  // more than one starling.mac= token
};
const char* mac_error_text(MacError error);

// "6c:cf:39:00:12:34" (upper or lower case hex) into an address, with the
// MacError that refuses it otherwise.
MacError parse_mac(std::string_view text, hal::MacAddress* out);

struct MacBootarg {
  hal::MacAddress mac;
  bool found = false;  // a starling.mac= token was present
  MacError error = MacError::kNone;
};
// Looks for `starling.mac=` in `bootargs`.
MacBootarg parse_mac_bootargs(std::string_view bootargs);

// The GMAC0 node's address in the device tree. kNotFound without the node or
// the property (or when it is all zeros: DTs carry that as a placeholder);
// kMalformed if the property is not 6 bytes.
Result<hal::MacAddress> device_tree_mac(const fdt::DeviceTree& tree);

enum class MacSource : std::uint8_t { kDefault, kDeviceTree, kBootargs };
const char* mac_source_text(MacSource source);

struct MacChoice {
  hal::MacAddress mac = kDefaultMac;
  MacSource source = MacSource::kDefault;
  MacError bootarg_error = MacError::kNone;  // a refused starling.mac= value
  bool device_tree_malformed = false;        // a local-mac-address not 6 bytes
};
// The address by the order above; `tree` may be null (no usable DT).
MacChoice choose_mac(const fdt::DeviceTree* tree);

}  // namespace starling::board

#endif  // STARLING_PLATFORM_STAR64_MAC_ADDRESS_H_
