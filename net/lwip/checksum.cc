// lwIP's checksum routine (LWIP_CHKSUM, arch/cc.h): the RFC 1071 one's
// complement sum, 64 bits at a time.
//
// Why our own: every echoed UDP datagram is summed twice (checked on the way
// in, generated on the way out), 1480 bytes each, and lwIP's best portable
// routine ("algorithm 3", 32 bits and a compare per word) cost about one
// instruction a byte. Here: aligned 64-bit loads with the carries added back
// (RFC 1071 §2(C): the sum may be taken in wider words and folded), summed in
// memory order and folded at the end (§2(B): byte order does not matter as
// long as the result is used in the same order). A start at an odd address
// is summed as the swapped sum of the even-aligned stream (§2(B) again).
#include <bit>
#include <cstddef>
#include <cstdint>

#include "arch/cc.h"
#include "kernel/wire/checksum.h"

namespace {

static_assert(std::endian::native == std::endian::little,
              "the odd-byte placement below assumes a little-endian CPU");

typedef std::uint64_t __attribute__((may_alias)) Word64;
typedef std::uint16_t __attribute__((may_alias)) Word16;

inline void add_carry(std::uint64_t& sum, std::uint64_t value) {
  sum += value;
  sum += sum < value;  // the end-around carry
}

}  // namespace

extern "C" std::uint16_t starling_lwip_chksum(const void* data, int length) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t n = length > 0 ? static_cast<std::size_t>(length) : 0;
  std::uint64_t sum = 0;
  const bool odd = (reinterpret_cast<std::uintptr_t>(p) & 1) != 0;
  if (odd && n != 0) {
    // The even-aligned word holding p[0] is (0, p[0]): p[0] is its high byte.
    sum = std::uint64_t{p[0]} << 8;
    ++p;
    --n;
  }
  while (n >= 2 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0) {
    sum += *reinterpret_cast<const Word16*>(p);
    p += 2;
    n -= 2;
  }
  for (; n >= 32; n -= 32, p += 32) {
    const auto* w = reinterpret_cast<const Word64*>(p);
    add_carry(sum, w[0]);
    add_carry(sum, w[1]);
    add_carry(sum, w[2]);
    add_carry(sum, w[3]);
  }
  for (; n >= 8; n -= 8, p += 8) add_carry(sum, *reinterpret_cast<const Word64*>(p));
  std::uint64_t tail = 0;
  for (; n >= 2; n -= 2, p += 2) tail += *reinterpret_cast<const Word16*>(p);
  if (n != 0) tail += p[0];  // a last odd byte is the low byte of its word
  add_carry(sum, tail);
  auto folded = starling::wire::fold(sum);  // 64 -> 16 bits, the carries added back
  if (odd) folded = static_cast<std::uint16_t>((folded << 8) | (folded >> 8));
  return folded;
}
