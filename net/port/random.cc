#include "net/port/random.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <span>

#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "kernel/hal/entropy.h"
#include "lwip/ip_addr.h"
#include "net/address/ip_address_lwip.h"
#include "net/lwip/arch/cc.h"
#include "net/lwip/arch/hooks.h"

namespace starling::net {
namespace {

constinit SipKey isn_key{};
constinit SipKey rand_key{};
constinit std::uint64_t rand_counter = 0;
constinit EntropyStatus status{};

std::uint64_t load_u64(const std::byte* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// No entropy: keys from what differs between boots at all (cycle counter and
// clock at this moment). Guessable by anyone who can estimate boot timing.
void weak_keys() {
  const std::uint64_t a = hal::cycles() * 0x9E3779B97F4A7C15ULL;
  const std::uint64_t b = hal::now_ns() ^ 0xD1B54A32D192ED03ULL;
  isn_key = {a, b};
  rand_key = {b * 0xBF58476D1CE4E5B9ULL, a ^ 0x94D049BB133111EBULL};
}

// The connection's 4-tuple, the keyed hashes' common input: local address,
// remote address (16 bytes each, IpAddress::hash_bytes()), local port,
// remote port (network order, as given).
constexpr std::size_t kTupleBytes = 36;
void put_tuple(std::uint8_t* out, const IpAddress& local_ip, std::uint16_t local_port,
               const IpAddress& remote_ip, std::uint16_t remote_port) {
  const auto local = local_ip.hash_bytes();
  const auto remote = remote_ip.hash_bytes();
  std::memcpy(out, local.data(), 16);
  std::memcpy(out + 16, remote.data(), 16);
  std::memcpy(out + 32, &local_port, 2);
  std::memcpy(out + 34, &remote_port, 2);
}

}  // namespace

void seed_from_board_entropy() noexcept {
  if (status.seeded) return;
  status.seeded = true;
  status.source = hal::entropy_source();
  std::array<std::byte, 32> bytes{};
  auto filled = hal::fill_entropy(bytes);
  if (filled.ok()) {
    isn_key = {load_u64(&bytes[0]), load_u64(&bytes[8])};
    rand_key = {load_u64(&bytes[16]), load_u64(&bytes[24])};
    std::memset(bytes.data(), 0, bytes.size());
    status.ok = true;
    return;
  }
  weak_keys();
  console::print("net: WARNING: no entropy (source: ");
  console::print(status.source);
  console::print(", ");
  console::print(error_name(filled.error()));
  console::print("): TCP sequence numbers and lwIP's random numbers are predictable\n");
}

const EntropyStatus& entropy_status() noexcept {
  return status;
}

void set_keys_for_testing(const SipKey& isn, const SipKey& rand) noexcept {
  isn_key = isn;
  rand_key = rand;
  status = {.seeded = true, .ok = true, .source = "test"};
}

std::uint32_t tcp_isn(const IpAddress& local_ip, std::uint16_t local_port,
                      const IpAddress& remote_ip, std::uint16_t remote_port,
                      std::uint64_t now_ns) noexcept {
  std::array<std::uint8_t, kTupleBytes> tuple{};
  put_tuple(tuple.data(), local_ip, local_port, remote_ip, remote_port);
  const auto f = static_cast<std::uint32_t>(siphash24(isn_key, tuple));
  const auto m = static_cast<std::uint32_t>(now_ns / 4000);  // RFC 6528's 4 us clock
  return m + f;
}

std::uint32_t syn_cookie_hash(const IpAddress& local_ip, std::uint16_t local_port,
                              const IpAddress& remote_ip, std::uint16_t remote_port,
                              std::uint32_t client_isn, std::uint32_t counter) noexcept {
  std::array<std::uint8_t, kTupleBytes + 8> block{};
  put_tuple(block.data(), local_ip, local_port, remote_ip, remote_port);
  std::memcpy(&block[kTupleBytes], &client_isn, 4);
  std::memcpy(&block[kTupleBytes + 4], &counter, 4);
  return static_cast<std::uint32_t>(siphash24(isn_key, block));
}

std::uint32_t random_u32() noexcept {
  seed_from_board_entropy();  // once; a flag test after that
  const std::uint64_t n = rand_counter++;
  std::array<std::uint8_t, 8> block{};
  std::memcpy(block.data(), &n, sizeof n);
  return static_cast<std::uint32_t>(siphash24(rand_key, block) >> 32);
}

}  // namespace starling::net

extern "C" u32_t starling_tcp_isn(const ip_addr_t* local_ip, u16_t local_port,
                                  const ip_addr_t* remote_ip, u16_t remote_port) {
  starling::net::seed_from_board_entropy();  // once; a flag test after that
  return starling::net::tcp_isn(starling::net::from_lwip(*local_ip), lwip_htons(local_port),
                                starling::net::from_lwip(*remote_ip), lwip_htons(remote_port),
                                starling::hal::now_ns());
}

extern "C" u32_t starling_tcp_syncookie(const ip_addr_t* local_ip, u16_t local_port,
                                        const ip_addr_t* remote_ip, u16_t remote_port,
                                        u32_t client_isn, u32_t counter) {
  starling::net::seed_from_board_entropy();  // once; a flag test after that
  return starling::net::syn_cookie_hash(starling::net::from_lwip(*local_ip), lwip_htons(local_port),
                                        starling::net::from_lwip(*remote_ip),
                                        lwip_htons(remote_port), client_isn, counter);
}

extern "C" uint32_t starling_lwip_rand(void) {
  return starling::net::random_u32();
}
