#ifndef STARLING_KERNEL_LIB_BOOTARGS_H_
#define STARLING_KERNEL_LIB_BOOTARGS_H_

#include <cstdint>
#include <string_view>

// The kernel command line (/chosen/bootargs): space-separated tokens, the
// settings of the kernel (starling.stall_ms=), the network (ip=,
// starling.mac=, starling.gmac=) and the apps (httpd.slots=).
namespace starling {

// The value of the first `key=value` token in `bootargs`, e.g.
// bootarg_value("ip=dhcp starling.x=1", "starling.x") == "1"; an empty view
// with found=false when there is none. repeated: a later token has the same
// key (every parser of a bootarg refuses that: which was meant?). The one
// walk over the tokens.
struct BootargValue {
  std::string_view value;
  bool found = false;
  bool repeated = false;
};
BootargValue bootarg_value(std::string_view bootargs, std::string_view key);

// A whole decimal number in [low, high] (no sign, no spaces): false for
// anything else, `out` untouched.
bool parse_bootarg_number(std::string_view text, std::uint64_t low, std::uint64_t high,
                          std::uint64_t* out);

}  // namespace starling

#endif  // STARLING_KERNEL_LIB_BOOTARGS_H_
