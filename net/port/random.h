#ifndef STARLING_NET_PORT_RANDOM_H_
#define STARLING_NET_PORT_RANDOM_H_

#include <cstdint>
#include <string_view>

#include "kernel/lib/siphash.h"
#include "net/address/ip_address.h"

// The network stack's secrets: the key behind TCP initial sequence numbers
// (RFC 6528) and lwIP's random numbers (LWIP_RAND: DHCP transaction ids,
// local ports), both taken from the board's entropy source (hal/entropy.h)
// when the first netif starts.
//
// RFC 6528: ISN = M + F(local address, local port, remote address, remote
// port, key), M a timer ticking every 4 us, F SipHash-2-4 keyed with 128
// secret bits. A peer that sees its own ISNs learns nothing of another
// connection's, and a connection's next incarnation starts further on.
// LWIP_RAND is SipHash-2-4 of a counter under a second key.
//
// A board without entropy (hal::fill_entropy says kUnsupported or fails)
// gets keys from its cycle counter and clock, says so once on the console
// ("net: WARNING: no entropy ...") and reports entropy_ok() false in the
// stats: predictable sequence numbers are a fact users must be told.
namespace starling::net {

struct EntropyStatus {
  bool seeded = false;  // seed_from_board_entropy() has run
  bool ok = false;      // the keys came from the board's entropy source
  std::string_view source;
};

// Takes the keys from the board's entropy (once; later calls do nothing).
void seed_from_board_entropy() noexcept;
const EntropyStatus& entropy_status() noexcept;

// For tests: fixed keys.
void set_keys_for_testing(const SipKey& isn_key, const SipKey& rand_key) noexcept;

// RFC 6528's ISN for a connection (either family: the whole address is
// hashed, IpAddress::hash_bytes(); ports in network byte order, as lwIP
// keeps them), at `now_ns`.
std::uint32_t tcp_isn(const IpAddress& local_ip, std::uint16_t local_port,
                      const IpAddress& remote_ip, std::uint16_t remote_port,
                      std::uint64_t now_ns) noexcept;

// The keyed hash inside a SYN cookie (lwIP's LWIP_HOOK_TCP_SYN_COOKIE):
// SipHash of the 4-tuple (network order), the client's ISN and lwIP's
// counter (time period and MSS index), under the ISN key.
std::uint32_t syn_cookie_hash(const IpAddress& local_ip, std::uint16_t local_port,
                              const IpAddress& remote_ip, std::uint16_t remote_port,
                              std::uint32_t client_isn, std::uint32_t counter) noexcept;

// The next LWIP_RAND value.
std::uint32_t random_u32() noexcept;

}  // namespace starling::net

#endif  // STARLING_NET_PORT_RANDOM_H_
