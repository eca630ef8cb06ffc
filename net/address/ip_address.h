#ifndef STARLING_NET_ADDRESS_IP_ADDRESS_H_
#define STARLING_NET_ADDRESS_IP_ADDRESS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

// The one address type of net/'s sockets, IPv4 or IPv6 (docs/ipv6.md): UDP
// and TCP take and give it in an Endpoint, so a service serves both
// families through one code path. An IPv4 address is kept in host byte
// order (10.0.2.15 is 0x0A00020F, as net/netif/ip_config.h has it); an
// IPv6 address as its 16 bytes in network order. The conversion to lwIP's
// ip_addr_t is in ip_address_lwip.h. No lwIP here: host tests and
// configuration parsers use it without the stack.
namespace starling::net {

class IpAddress {
 public:
  using V6Bytes = std::array<std::uint8_t, 16>;

  // 0.0.0.0.
  constexpr IpAddress() noexcept = default;

  static constexpr IpAddress v4(std::uint32_t host_order) noexcept {
    IpAddress a;
    a.v4_ = host_order;
    return a;
  }
  static constexpr IpAddress v6(const V6Bytes& bytes) noexcept {
    IpAddress a;
    a.v6_ = true;
    a.bytes_ = bytes;
    return a;
  }

  constexpr bool is_v4() const noexcept { return !v6_; }
  constexpr bool is_v6() const noexcept { return v6_; }
  // Host order; 0 for an IPv6 address.
  constexpr std::uint32_t v4_host_order() const noexcept { return v6_ ? 0 : v4_; }
  // Network order; all zero for an IPv4 address.
  constexpr const V6Bytes& v6_bytes() const noexcept { return bytes_; }

  // 0.0.0.0 or ::.
  constexpr bool is_unspecified() const noexcept {
    if (!v6_) return v4_ == 0;
    for (std::uint8_t b : bytes_) {
      if (b != 0) return false;
    }
    return true;
  }
  // 224.0.0.0/4 or ff00::/8.
  constexpr bool is_multicast() const noexcept {
    return v6_ ? bytes_[0] == 0xFF : (v4_ >> 28) == 0xE;
  }
  // fe80::/10.
  constexpr bool is_link_local_v6() const noexcept {
    return v6_ && bytes_[0] == 0xFE && (bytes_[1] & 0xC0) == 0x80;
  }

  // The 16 bytes a keyed hash takes: an IPv6 address as it is, an IPv4
  // address in its IPv4-mapped form (::ffff:a.b.c.d), so the two families
  // never hash alike.
  constexpr V6Bytes hash_bytes() const noexcept {
    if (v6_) return bytes_;
    V6Bytes out{};
    out[10] = 0xFF;
    out[11] = 0xFF;
    out[12] = static_cast<std::uint8_t>(v4_ >> 24);
    out[13] = static_cast<std::uint8_t>(v4_ >> 16);
    out[14] = static_cast<std::uint8_t>(v4_ >> 8);
    out[15] = static_cast<std::uint8_t>(v4_);
    return out;
  }

  // Who a per-peer limit counts this address as: an IPv4 address itself;
  // an IPv6 address by its /64, because one host on a link can take any
  // number of addresses in its /64 (SLAAC, privacy addresses) and so be
  // any number of "peers" otherwise. A link-local address by itself: every
  // host on the link shares fe80::/64, so the /64 would make them one peer.
  constexpr IpAddress peer() const noexcept {
    if (!v6_ || is_link_local_v6()) return *this;
    IpAddress p = *this;
    for (std::size_t i = 8; i < 16; ++i) p.bytes_[i] = 0;
    return p;
  }

  friend constexpr bool operator==(const IpAddress&, const IpAddress&) = default;

 private:
  V6Bytes bytes_{};
  std::uint32_t v4_ = 0;
  bool v6_ = false;
};

// The longest text format_ip writes: an IPv6 address with an embedded IPv4
// tail, "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255" is 45 characters.
inline constexpr std::size_t kIpTextMax = 46;

// RFC 5952's text: IPv4 dotted; IPv6 in lower case, leading zeros dropped,
// the longest run of two or more zero groups (the first of equal runs) as
// "::". Writes into `out` (kIpTextMax bytes suffice; a shorter buffer gets
// a truncated text) and returns what it wrote, without a terminator.
std::string_view format_ip(const IpAddress& address, std::span<char> out) noexcept;

// "a.b.c.d" as an IPv4 address, or an IPv6 address in any RFC 4291 text
// form ("::", "fe80::1", "2001:db8::192.0.2.1"); nullopt for anything else
// (no zone index, no brackets, no prefix length).
std::optional<IpAddress> parse_ip(std::string_view text) noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_ADDRESS_IP_ADDRESS_H_
