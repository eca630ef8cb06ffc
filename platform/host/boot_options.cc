#include "platform/host/boot_options.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace starling::host {
namespace {

BootOptions g_options;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool take_value(std::string_view arg, std::string_view flag, std::string_view* value) {
  if (arg.substr(0, flag.size()) != flag) return false;
  *value = arg.substr(flag.size());
  return true;
}

}  // namespace

bool parse_mac(std::string_view text, hal::MacAddress* mac) {
  if (text.size() != 17) return false;
  for (std::size_t i = 0; i < 6; ++i) {
    const int high = hex_digit(text[i * 3]);
    const int low = hex_digit(text[i * 3 + 1]);
    if (high < 0 || low < 0) return false;
    if (i < 5 && text[i * 3 + 2] != ':') return false;
    mac->bytes[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return true;
}

bool parse_boot_options(std::span<const char* const> args, BootOptions* options,
                        std::string* error) {
  for (const char* raw : args) {
    const std::string_view arg(raw);
    std::string_view value;
    if (arg == "--help" || arg == "-h") {
      options->help = true;
    } else if (take_value(arg, "--tap=", &value)) {
      // IFNAMSIZ is 16 with the terminator.
      if (value.empty() || value.size() > 15) {
        *error = "--tap=NAME: NAME must be 1 to 15 characters (a Linux interface name)";
        return false;
      }
      options->tap = std::string(value);
    } else if (take_value(arg, "--mac=", &value)) {
      if (!parse_mac(value, &options->mac)) {
        *error = "--mac=" + std::string(value) + ": expected six hex bytes, e.g. 02:53:54:00:00:01";
        return false;
      }
      if (options->mac.bytes[0] & 1) {
        *error = "--mac=" + std::string(value) +
                 ": a multicast address (first byte odd); use e.g. 02:..";
        return false;
      }
    } else if (take_value(arg, "--ip=", &value)) {
      if (value.empty()) {
        *error = "--ip= needs a value: dhcp or A.B.C.D/N[,gw=E.F.G.H]";
        return false;
      }
      if (!options->bootargs.empty()) options->bootargs += ' ';
      options->bootargs += "ip=" + std::string(value);
    } else if (take_value(arg, "--bootargs=", &value)) {
      if (!options->bootargs.empty()) options->bootargs += ' ';
      options->bootargs += std::string(value);
    } else if (take_value(arg, "--initrd=", &value)) {
      if (value.empty()) {
        *error = "--initrd=FILE needs a file: a cpio newc archive (docs/boot-files.md)";
        return false;
      }
      options->initrd = std::string(value);
    } else if (take_value(arg, "--memory-mib=", &value)) {
      std::size_t mib = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), mib);
      if (ec != std::errc() || end != value.data() + value.size() || mib < 4 || mib > 4096) {
        *error = "--memory-mib=" + std::string(value) + ": expected a whole number from 4 to 4096";
        return false;
      }
      options->memory_bytes = mib << 20;
    } else {
      *error = "unknown argument '" + std::string(arg) + "' (see --help)";
      return false;
    }
  }
  return true;
}

const BootOptions& boot_options() {
  return g_options;
}

void set_boot_options(const BootOptions& options) {
  g_options = options;
}

namespace {
std::vector<std::byte>& initrd_storage() {
  static std::vector<std::byte> bytes;
  return bytes;
}
}  // namespace

bool load_initrd(const std::string& path, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = "--initrd=" + path + ": cannot open it (" + std::strerror(errno) + ")";
    return false;
  }
  std::vector<std::byte>& bytes = initrd_storage();
  std::byte chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    *error = "--initrd=" + path + ": read error";
    return false;
  }
  return true;
}

std::span<const std::byte> initrd_bytes() {
  return initrd_storage();
}

}  // namespace starling::host
