#include "kernel/lib/copy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace starling::lib {
namespace {

// Every source and destination alignment (0..15 past a 16-byte boundary)
// and every length 0..300, plus frame sizes: exactly the bytes asked for
// are copied, nothing around the destination is touched. Under ASan, any
// load outside the source range would be reported.
TEST(CopyForward, EveryAlignmentAndLength) {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (std::size_t n : {1514u, 1518u, 2047u, 4096u}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    for (std::size_t so = 0; so < 16; ++so) {
      for (std::size_t dof = 0; dof < 16; ++dof) {
        // Exactly-sized heap blocks, so ASan sees any over-read or over-write.
        auto* src_block = new unsigned char[so + n];
        auto* dst_block = new unsigned char[dof + n + 16];
        for (std::size_t i = 0; i < so + n; ++i)
          src_block[i] = static_cast<unsigned char>(i * 7 + 3);
        std::memset(dst_block, 0xEE, dof + n + 16);
        copy_forward(dst_block + dof, src_block + so, n);
        for (std::size_t i = 0; i < dof; ++i)
          ASSERT_EQ(dst_block[i], 0xEE) << n << " " << so << " " << dof;
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(dst_block[dof + i], src_block[so + i])
              << "n=" << n << " so=" << so << " do=" << dof << " i=" << i;
        }
        for (std::size_t i = dof + n; i < dof + n + 16; ++i) ASSERT_EQ(dst_block[i], 0xEE);
        delete[] src_block;
        delete[] dst_block;
      }
    }
  }
}

// memmove's forward case: the destination starts first and overlaps.
TEST(CopyForward, OverlapWithDestinationFirst) {
  for (std::size_t gap = 1; gap < 24; ++gap) {
    for (std::size_t n = 0; n < 200; ++n) {
      std::vector<unsigned char> buffer(n + gap + 8), expected;
      for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<unsigned char>(i);
      expected = buffer;
      std::memmove(expected.data() + 1, expected.data() + 1 + gap, n);
      copy_forward(buffer.data() + 1, buffer.data() + 1 + gap, n);
      ASSERT_EQ(buffer, expected) << "gap=" << gap << " n=" << n;
    }
  }
}

// memset's fill: every alignment and length 0..300, each byte value's
// pattern; exactly the bytes asked for change.
TEST(Fill, EveryAlignmentAndLength) {
  for (std::size_t n = 0; n <= 300; ++n) {
    for (std::size_t offset = 0; offset < 16; ++offset) {
      for (unsigned value : {0x00u, 0x5Au, 0xFFu}) {
        std::vector<unsigned char> block(offset + n + 16, 0xEE);
        fill(block.data() + offset, static_cast<unsigned char>(value), n);
        for (std::size_t i = 0; i < block.size(); ++i) {
          const bool inside = i >= offset && i < offset + n;
          ASSERT_EQ(block[i], inside ? value : 0xEE)
              << "n=" << n << " offset=" << offset << " i=" << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace starling::lib
