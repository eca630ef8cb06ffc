#ifndef STARLING_KERNEL_LIB_BOOTARGS_H_
#define STARLING_KERNEL_LIB_BOOTARGS_H_

#include <cstdint>
#include <string_view>

#include "kernel/text/writer.h"

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

// A number on the kernel command line, declared once next to what it
// configures: its key, the values it takes, its default and one line of
// help (what docs/boot-parameters.md's table says of it). Every numeric
// option reads through read_number_param(), so each is refused the same
// way, with its fix.
struct NumberParam {
  std::string_view key;   // "starling.stall_ms" (the token is key=N)
  std::uint64_t low = 0;  // N from low to high
  std::uint64_t high = 0;
  std::uint64_t fallback = 0;  // in force when the key is absent or refused
  bool off = false;            // `key=off` is taken too, as 0 (no limit)
  std::string_view help;       // one line: what N is
};

struct NumberParamReading {
  bool found = false;       // the key was on the command line
  bool refused = false;     // ... and its value was not taken
  std::uint64_t value = 0;  // in force: the value given, else the fallback
};

// `param` from `bootargs`. A value that is not a whole number from low to
// high (nor `off`, where taken), or a key given twice, is refused whole:
// the fallback stays in force and `why` gets one clause without a newline:
// "KEY=VALUE: not 1 to 128 or off; fix: KEY=63" (or "KEY=: given twice;
// fix: ..."). The caller prefixes its name and prints it.
// (Inline, passing the fields one by one: a declaration's help text is for
// the documentation and never reaches an image's .rodata.)
NumberParamReading read_number(std::string_view bootargs, std::string_view key, std::uint64_t low,
                               std::uint64_t high, std::uint64_t fallback, bool off,
                               text::TextWriter& why);
inline NumberParamReading read_number_param(std::string_view bootargs, const NumberParam& param,
                                            text::TextWriter& why) {
  return read_number(bootargs, param.key, param.low, param.high, param.fallback, param.off, why);
}

}  // namespace starling

#endif  // STARLING_KERNEL_LIB_BOOTARGS_H_
