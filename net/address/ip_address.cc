#include "net/address/ip_address.h"

#include "kernel/text/writer.h"

namespace starling::net {
namespace {

using text::TextWriter;

// One IPv6 group in lower-case hex, no leading zeros (RFC 5952 4.1, 4.3).
void put_hex_group(TextWriter& w, std::uint32_t v) noexcept {
  bool started = false;
  for (int shift = 12; shift >= 0; shift -= 4) {
    const std::uint32_t d = (v >> shift) & 0xF;
    if (d != 0 || started || shift == 0) {
      w.put(text::hex_digit(d));
      started = true;
    }
  }
}

void dotted(TextWriter& w, std::uint32_t v4) noexcept {
  for (int shift = 24; shift >= 0; shift -= 8) {
    w.put_decimal((v4 >> shift) & 0xFF);
    if (shift != 0) w.put('.');
  }
}

std::optional<std::uint32_t> parse_dotted(std::string_view text) noexcept {
  std::uint32_t value = 0;
  int octets = 0;
  std::size_t i = 0;
  while (octets < 4) {
    std::uint32_t octet = 0;
    std::size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4) {
      octet = octet * 10 + static_cast<std::uint32_t>(text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || digits > 3 || octet > 255) return std::nullopt;
    value = (value << 8) | octet;
    ++octets;
    if (octets < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return value;
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 4291 section 2.2: up to eight groups of 1-4 hex digits, one "::" for
// a run of zero groups, an optional dotted IPv4 tail for the last two.
std::optional<IpAddress::V6Bytes> parse_v6(std::string_view text) noexcept {
  std::array<std::uint16_t, 8> groups{};
  int count = 0;
  int gap = -1;  // the group index "::" stands at
  std::size_t i = 0;
  if (text.substr(0, 2) == "::") {
    gap = 0;
    i = 2;
  } else if (!text.empty() && text[0] == ':') {
    return std::nullopt;
  }
  while (i < text.size()) {
    // An IPv4 tail: the last group has a '.', and two groups are left for it.
    const std::string_view rest = text.substr(i);
    if (rest.find('.') != std::string_view::npos && rest.find(':') == std::string_view::npos) {
      const auto v4 = parse_dotted(rest);
      if (!v4 || count > 6) return std::nullopt;
      groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(*v4 >> 16);
      groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(*v4 & 0xFFFF);
      i = text.size();
      break;
    }
    std::uint32_t group = 0;
    std::size_t digits = 0;
    while (i < text.size() && hex_digit(text[i]) >= 0) {
      if (++digits > 4) return std::nullopt;
      group = (group << 4) | static_cast<std::uint32_t>(hex_digit(text[i]));
      ++i;
    }
    if (digits == 0 || count == 8) return std::nullopt;
    groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(group);
    if (i == text.size()) break;
    if (text[i] != ':') return std::nullopt;
    ++i;
    if (i < text.size() && text[i] == ':') {
      if (gap >= 0) return std::nullopt;  // a second "::"
      gap = count;
      ++i;
    } else if (i == text.size()) {
      return std::nullopt;  // a trailing single ':'
    }
  }
  if (gap < 0 && count != 8) return std::nullopt;
  if (gap >= 0 && count > 7) return std::nullopt;  // "::" stands for at least one group
  std::array<std::uint16_t, 8> full{};
  const int tail = gap < 0 ? 0 : count - gap;
  for (int k = 0; k < count - tail; ++k)
    full[static_cast<std::size_t>(k)] = groups[static_cast<std::size_t>(k)];
  for (int k = 0; k < tail; ++k) {
    full[static_cast<std::size_t>(8 - tail + k)] = groups[static_cast<std::size_t>(gap + k)];
  }
  IpAddress::V6Bytes bytes{};
  for (std::size_t k = 0; k < 8; ++k) {
    bytes[2 * k] = static_cast<std::uint8_t>(full[k] >> 8);
    bytes[2 * k + 1] = static_cast<std::uint8_t>(full[k] & 0xFF);
  }
  return bytes;
}

}  // namespace

std::string_view format_ip(const IpAddress& address, std::span<char> out) noexcept {
  TextWriter w(out);
  if (address.is_v4()) {
    dotted(w, address.v4_host_order());
    return {out.data(), w.size()};
  }
  const auto& b = address.v6_bytes();
  std::array<std::uint32_t, 8> groups{};
  for (std::size_t k = 0; k < 8; ++k) groups[k] = (std::uint32_t{b[2 * k]} << 8) | b[2 * k + 1];
  // The longest run of zero groups, two or more, the first of equal ones.
  std::size_t best = 8;
  std::size_t best_length = 1;
  for (std::size_t k = 0; k < 8;) {
    if (groups[k] != 0) {
      ++k;
      continue;
    }
    std::size_t end = k;
    while (end < 8 && groups[end] == 0) ++end;
    if (end - k > best_length) {
      best = k;
      best_length = end - k;
    }
    k = end;
  }
  for (std::size_t k = 0; k < 8; ++k) {
    if (k == best) {
      w.put(':');
      w.put(':');
      k += best_length - 1;
      continue;
    }
    if (k != 0 && k != best + best_length) w.put(':');
    put_hex_group(w, groups[k]);
  }
  return {out.data(), w.size()};
}

std::optional<IpAddress> parse_ip(std::string_view text) noexcept {
  if (text.find(':') == std::string_view::npos) {
    const auto v4 = parse_dotted(text);
    if (!v4) return std::nullopt;
    return IpAddress::v4(*v4);
  }
  const auto v6 = parse_v6(text);
  if (!v6) return std::nullopt;
  return IpAddress::v6(*v6);
}

}  // namespace starling::net
