#ifndef STARLING_NET_TLS_P256_FIELD_H_
#define STARLING_NET_TLS_P256_FIELD_H_

#include <cstdint>

// Arithmetic modulo P-256's prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1 in
// four 64-bit limbs, for the point operations behind Mbed TLS's ECP hooks
// (ecp_alt.cc). Mbed TLS's generic code spends ~1,500 instructions on a
// field product (a bignum product of 64-bit limbs through
// mbedtls_mpi_core_mla, its NIST reduction over 32-bit words of a second
// bignum, the allocations); here a product is 16 mul/mulhu pairs and the
// same NIST reduction on words held in registers (docs/tls.md, "What a
// handshake costs").
//
// Every value in and out is fully reduced (below p). Constant time: no
// branch or memory address depends on a value; conditional corrections
// select by mask. The exponent of inverse() (p - 2) is public.
namespace starling::net::tls::p256 {

// Little-endian limbs: value = w[0] + w[1] * 2^64 + w[2] * 2^128 + w[3] * 2^192.
struct Fe {
  std::uint64_t w[4];
};

inline constexpr Fe kPrime = {
    {0xFFFFFFFFFFFFFFFFu, 0x00000000FFFFFFFFu, 0x0000000000000000u, 0xFFFFFFFF00000001u}};

Fe add(const Fe& a, const Fe& b);
Fe sub(const Fe& a, const Fe& b);
Fe mul(const Fe& a, const Fe& b);
Fe sqr(const Fe& a);
// a^(p-2) = 1/a for a != 0 (Fermat); 0 for 0.
Fe inverse(const Fe& a);
// a mod p for any a below 2^256 (one conditional subtraction: 2^256 < 2p).
Fe reduce_once(const Fe& a);
bool is_zero(const Fe& a);  // not constant time: for the public special cases

}  // namespace starling::net::tls::p256

#endif  // STARLING_NET_TLS_P256_FIELD_H_
