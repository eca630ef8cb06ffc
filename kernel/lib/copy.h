#ifndef STARLING_KERNEL_LIB_COPY_H_
#define STARLING_KERNEL_LIB_COPY_H_

#include <cstddef>
#include <cstdint>

// The forward byte copy behind memcpy (and memmove when the destination
// starts first), and the fill behind memset, header-only so host tests can
// run them over every alignment.
//
// Why not a byte loop: a frame copy (1514 bytes, 2 bytes past an 8-byte
// boundary on both sides, as Ethernet payloads are) cost 6 instructions a
// byte, most of a reflected frame's cost on riscv64. Why not unaligned word
// loads: the U74 traps them to firmware. So: step to the destination's word
// boundary (in 1-, 2- and 4-byte steps when the source allows); if the
// source is then aligned too, copy whole words, eight at a time, then the
// tail in 4-, 2- and 1-byte steps; if not, load aligned source words and merge
// neighbours with shifts, so every load and store is aligned and no byte
// outside the source or destination is touched. Always inlined: memcpy and
// memmove are this function, and with the four-word shift loop clang
// stopped inlining it on its own (a call more in every copy).
namespace starling::lib {

namespace detail {
// may_alias: word accesses to memory of any declared type are not UB.
typedef std::uint64_t __attribute__((may_alias)) CopyWord;
typedef std::uint32_t __attribute__((may_alias)) CopyHalf;
typedef std::uint16_t __attribute__((may_alias)) CopyQuarter;
inline constexpr std::size_t kCopyWord = sizeof(CopyWord);
inline constexpr std::size_t kCopyHalf = sizeof(CopyHalf);

// One T from s to d (both aligned for T), and past it.
template <typename T>
[[clang::no_builtin, gnu::always_inline]] inline void copy_step(unsigned char*& d,
                                                                const unsigned char*& s,
                                                                std::size_t& n) {
  *reinterpret_cast<T*>(d) = *reinterpret_cast<const T*>(s);
  d += sizeof(T);
  s += sizeof(T);
  n -= sizeof(T);
}
}  // namespace detail

[[clang::no_builtin, gnu::always_inline]] inline void copy_forward(unsigned char* d,
                                                                   const unsigned char* s,
                                                                   std::size_t n) {
  using detail::copy_step;
  using detail::CopyHalf;
  using detail::CopyQuarter;
  using detail::CopyWord;
  using detail::kCopyHalf;
  using detail::kCopyWord;
  if (n >= 2 * kCopyWord) {
    // To the destination's word boundary: in 1-, 2- and 4-byte steps when
    // the source sits at the same place within its 4 bytes, so each step's
    // load is aligned too (an Ethernet payload, 2 bytes past a boundary on
    // both sides: 3 steps where a byte a turn took 6 turns of 10
    // instructions); a byte a turn otherwise.
    const auto d_at = reinterpret_cast<std::uintptr_t>(d);
    if (((d_at ^ reinterpret_cast<std::uintptr_t>(s)) % kCopyHalf) == 0) {
      if (d_at % 2 != 0) copy_step<unsigned char>(d, s, n);
      if (reinterpret_cast<std::uintptr_t>(d) % 4 != 0) copy_step<CopyQuarter>(d, s, n);
      if (reinterpret_cast<std::uintptr_t>(d) % kCopyWord != 0) copy_step<CopyHalf>(d, s, n);
    } else {
      while (reinterpret_cast<std::uintptr_t>(d) % kCopyWord != 0) {
        *d++ = *s++;
        --n;
      }
    }
    const unsigned shift = reinterpret_cast<std::uintptr_t>(s) % kCopyWord;
    if (shift == 0) {
      // Eight words a turn: 16 loads and stores and 4 instructions of loop
      // per 64 bytes, where four a turn paid the 4 per 32 (a 1,460-byte
      // segment 605 -> ~470 instructions; the TCP echo copies two).
      for (; n >= 8 * kCopyWord; n -= 8 * kCopyWord, d += 8 * kCopyWord, s += 8 * kCopyWord) {
        const CopyWord w0 = reinterpret_cast<const CopyWord*>(s)[0];
        const CopyWord w1 = reinterpret_cast<const CopyWord*>(s)[1];
        const CopyWord w2 = reinterpret_cast<const CopyWord*>(s)[2];
        const CopyWord w3 = reinterpret_cast<const CopyWord*>(s)[3];
        const CopyWord w4 = reinterpret_cast<const CopyWord*>(s)[4];
        const CopyWord w5 = reinterpret_cast<const CopyWord*>(s)[5];
        const CopyWord w6 = reinterpret_cast<const CopyWord*>(s)[6];
        const CopyWord w7 = reinterpret_cast<const CopyWord*>(s)[7];
        reinterpret_cast<CopyWord*>(d)[0] = w0;
        reinterpret_cast<CopyWord*>(d)[1] = w1;
        reinterpret_cast<CopyWord*>(d)[2] = w2;
        reinterpret_cast<CopyWord*>(d)[3] = w3;
        reinterpret_cast<CopyWord*>(d)[4] = w4;
        reinterpret_cast<CopyWord*>(d)[5] = w5;
        reinterpret_cast<CopyWord*>(d)[6] = w6;
        reinterpret_cast<CopyWord*>(d)[7] = w7;
      }
      for (; n >= kCopyWord; n -= kCopyWord, d += kCopyWord, s += kCopyWord) {
        *reinterpret_cast<CopyWord*>(d) = *reinterpret_cast<const CopyWord*>(s);
      }
      // The last 0-7 bytes, both sides still aligned: 4, 2 and 1 at a time.
      if (n >= kCopyHalf) copy_step<CopyHalf>(d, s, n);
      if (n >= 2) copy_step<CopyQuarter>(d, s, n);
    } else if (shift == detail::kCopyHalf) {
      // Half a word off: both sides are 4-byte aligned, so aligned 32-bit
      // loads and stores, eight a turn, cost 20 instructions per 32 bytes
      // where merging shifted words costs 25. The case of a received IPv6
      // payload (its header 20 bytes longer than IPv4's) copied to a
      // word-aligned buffer or segment: the TCP echo's one such copy per
      // 1,440-byte segment, so the gate's tcp_echo6 8,539 -> 8,223
      // instructions per packet; ~110 bytes more at each inlined copy
      // (docs/benchmarks.md).
      for (; n >= 8 * kCopyHalf; n -= 8 * kCopyHalf, d += 8 * kCopyHalf, s += 8 * kCopyHalf) {
        const CopyHalf h0 = reinterpret_cast<const CopyHalf*>(s)[0];
        const CopyHalf h1 = reinterpret_cast<const CopyHalf*>(s)[1];
        const CopyHalf h2 = reinterpret_cast<const CopyHalf*>(s)[2];
        const CopyHalf h3 = reinterpret_cast<const CopyHalf*>(s)[3];
        const CopyHalf h4 = reinterpret_cast<const CopyHalf*>(s)[4];
        const CopyHalf h5 = reinterpret_cast<const CopyHalf*>(s)[5];
        const CopyHalf h6 = reinterpret_cast<const CopyHalf*>(s)[6];
        const CopyHalf h7 = reinterpret_cast<const CopyHalf*>(s)[7];
        reinterpret_cast<CopyHalf*>(d)[0] = h0;
        reinterpret_cast<CopyHalf*>(d)[1] = h1;
        reinterpret_cast<CopyHalf*>(d)[2] = h2;
        reinterpret_cast<CopyHalf*>(d)[3] = h3;
        reinterpret_cast<CopyHalf*>(d)[4] = h4;
        reinterpret_cast<CopyHalf*>(d)[5] = h5;
        reinterpret_cast<CopyHalf*>(d)[6] = h6;
        reinterpret_cast<CopyHalf*>(d)[7] = h7;
      }
      while (n >= kCopyHalf) copy_step<CopyHalf>(d, s, n);
      if (n >= 2) copy_step<CopyQuarter>(d, s, n);
    } else {
      // Little-endian: destination word k is source bytes 8k..8k+7, i.e. the
      // high bytes of the aligned word holding s[8k] and the low bytes of
      // the next one. The first aligned word's bytes before s are not ours
      // to read: its in-range bytes are assembled one by one instead.
      const unsigned low_bits = 8 * shift;
      const unsigned high_bits = 8 * (kCopyWord - shift);
      CopyWord carry = 0;
      for (unsigned i = 0; i < kCopyWord - shift; ++i) {
        carry |= CopyWord{s[i]} << (8 * (shift + i));
      }
      const unsigned char* next = s + (kCopyWord - shift);  // aligned
      // Word k reads the aligned word ending at byte 8k + 16 - shift <= 8k + 15:
      // whole while 16 bytes remain. Four words a turn first, as the aligned
      // loop does: which path a copy takes follows from where a buffer sits
      // (a 1-byte-aligned array in a coroutine frame moves with the frame's
      // layout), and at one word a turn a misaligned 1460-byte segment cost
      // 3.4 times the aligned copy, enough to move the TCP echo's cost gate
      // by 38% when an unrelated flag reordered a frame (docs/toolchain.md).
      for (; n >= 5 * kCopyWord; n -= 4 * kCopyWord, d += 4 * kCopyWord, s += 4 * kCopyWord) {
        const CopyWord w0 = reinterpret_cast<const CopyWord*>(next)[0];
        const CopyWord w1 = reinterpret_cast<const CopyWord*>(next)[1];
        const CopyWord w2 = reinterpret_cast<const CopyWord*>(next)[2];
        const CopyWord w3 = reinterpret_cast<const CopyWord*>(next)[3];
        reinterpret_cast<CopyWord*>(d)[0] = (carry >> low_bits) | (w0 << high_bits);
        reinterpret_cast<CopyWord*>(d)[1] = (w0 >> low_bits) | (w1 << high_bits);
        reinterpret_cast<CopyWord*>(d)[2] = (w1 >> low_bits) | (w2 << high_bits);
        reinterpret_cast<CopyWord*>(d)[3] = (w2 >> low_bits) | (w3 << high_bits);
        carry = w3;
        next += 4 * kCopyWord;
      }
      for (; n >= 2 * kCopyWord; n -= kCopyWord, d += kCopyWord, s += kCopyWord) {
        const CopyWord w = *reinterpret_cast<const CopyWord*>(next);
        *reinterpret_cast<CopyWord*>(d) = (carry >> low_bits) | (w << high_bits);
        carry = w;
        next += kCopyWord;
      }
    }
  }
  for (; n != 0; --n) {
    *d++ = *s++;
  }
}

// n bytes at d set to byte: bytes up to a word boundary, then whole words,
// four a turn (7 instructions per 32 bytes where one word a turn takes 16:
// Mbed TLS clears every context, key and hash state it drops and the
// allocator zeroes what calloc returns, 180k of a resumed TLS handshake's
// 1.74 M instructions before, 119k after; docs/tls.md).
[[clang::no_builtin, gnu::always_inline]] inline void fill(unsigned char* d, unsigned char byte,
                                                           std::size_t n) {
  using detail::CopyWord;
  using detail::kCopyWord;
  for (; n != 0 && reinterpret_cast<std::uintptr_t>(d) % kCopyWord != 0; --n) {
    *d++ = byte;
  }
  const CopyWord pattern = CopyWord{byte} * 0x0101010101010101ull;
  for (; n >= 4 * kCopyWord; n -= 4 * kCopyWord, d += 4 * kCopyWord) {
    reinterpret_cast<CopyWord*>(d)[0] = pattern;
    reinterpret_cast<CopyWord*>(d)[1] = pattern;
    reinterpret_cast<CopyWord*>(d)[2] = pattern;
    reinterpret_cast<CopyWord*>(d)[3] = pattern;
  }
  for (; n >= kCopyWord; n -= kCopyWord, d += kCopyWord) {
    *reinterpret_cast<CopyWord*>(d) = pattern;
  }
  for (; n != 0; --n) {
    *d++ = byte;
  }
}

}  // namespace starling::lib

#endif  // STARLING_KERNEL_LIB_COPY_H_
