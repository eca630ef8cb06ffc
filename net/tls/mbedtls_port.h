#ifndef STARLING_NET_TLS_MBEDTLS_PORT_H_
#define STARLING_NET_TLS_MBEDTLS_PORT_H_

#include <cstddef>
#include <cstdint>

#include "kernel/lib/result.h"

// What Mbed TLS needs from a board, and the accounting around it:
//
// - Memory: every calloc/free of the library goes through a budget
//   (kTlsMemoryBytes in all, set by init_mbedtls()); past it an allocation
//   fails, which Mbed TLS turns into a failed handshake for that
//   connection only, and is counted. The bytes in use and their peak are
//   the gauges docs/hostile-peers.md states bounds against.
// - Entropy: mbedtls_hardware_poll() reads the board's source
//   (kernel/hal/entropy.h). A board without one cannot seed the DRBG, so
//   init_mbedtls() fails with the reason and TLS is refused (never a
//   guessable seed).
// - Time: seconds and milliseconds since boot (hal::now_ns()), for ticket
//   lifetimes and TLS 1.3 ticket ages. There is no wall-clock date here, so
//   certificates' validity dates are not checked (docs/tls.md).
namespace starling::net::tls {

struct TlsMemoryStats {
  std::uint64_t in_use = 0;   // bytes Mbed TLS holds now (headers included)
  std::uint64_t peak = 0;     // the most it held at once
  std::uint64_t refused = 0;  // allocations past the budget, or the heap's
  std::uint64_t allocations = 0;
};

// Sessions one server holds at once: one per HTTP server slot
// (net/http/server.h's kMaxSlots).
inline constexpr std::size_t kMaxSessions = 64;
// One session's most from the budget: its record buffers (16 KiB in, 4 KiB
// out, each with record overhead) and, during the handshake, its state.
// Measured under 29 KiB per side (//net/tls:handshake_test, TLS 1.3, ECDSA
// P-256; it fails past 2 x kSessionBytes for a client and a server).
inline constexpr std::size_t kSessionBytes = 32 * 1024;
// What every session shares: the certificate chain and key, the client
// CA, the ticket keys (a few KiB each).
inline constexpr std::size_t kSharedTlsBytes = 64 * 1024;
// The budget for everything Mbed TLS allocates at once: every session at
// its most, so the slots bound TLS, not the budget. At 1 MiB, 40
// half-finished handshakes from a flood took it all and every other
// client's handshake failed for memory (//test/robustness:tls_hostile_host_test).
// The budget stays the last guard against a session past its measure.
inline constexpr std::size_t kTlsMemoryBytes = kMaxSessions * kSessionBytes + kSharedTlsBytes;

// Once, before any TLS use: the allocator hooks and the time source, then
// PSA Crypto's initialisation (which seeds its DRBG from the board's
// entropy). kUnsupported / kNotFound / kDeviceError: the board's entropy
// failed (its error, see kernel/hal/entropy.h). Calling it again returns the
// first call's result.
Result<void> init_mbedtls(std::size_t budget_bytes = kTlsMemoryBytes);

const TlsMemoryStats& tls_memory_stats();
// The peak starts again from what is in use now (a measurement's start).
void reset_tls_memory_peak();

}  // namespace starling::net::tls

#endif  // STARLING_NET_TLS_MBEDTLS_PORT_H_
