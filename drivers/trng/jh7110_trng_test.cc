// The JH7110 TRNG driver against a register model of the block: CTRL
// commands complete by setting their ISTAT bit (write 1 to clear), a reseed
// sets STAT.SEEDED, MODE.R256 shows in STAT bit 3 and selects 8 or 4 output
// words, an LFSR lockup can be injected, and a block that never answers (no
// clock) can be modelled.
#include "drivers/trng/jh7110_trng.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace starling::trng {
namespace {

using T = Jh7110Trng;

class TrngModel final : public mmio::RegisterBus {
 public:
  bool answers = true;          // false: commands never complete (clock gated)
  bool r256_sticks = true;      // false: MODE.R256 ignored (a 128-bit-only build)
  int lockup_on_generate = -1;  // the Nth generate also flags LFSR_LOCKUP
  int generates = 0, reseeds = 0;
  std::vector<std::uint32_t> ctrl_writes;

  std::uint32_t read32(std::uint32_t offset) override {
    switch (offset) {
      case T::kStat:
        return (seeded_ ? T::kStatSeeded : 0) |
               ((mode_ & T::kModeR256) && r256_sticks ? T::kStatR256 : 0);
      case T::kMode:
        return mode_;
      case T::kIstat:
        return istat_;
      default:
        if (offset >= T::kRand0 && offset < T::kRand0 + 32) return rand_[(offset - T::kRand0) / 4];
        return 0;
    }
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    switch (offset) {
      case T::kCtrl:
        ctrl_writes.push_back(value);
        if (!answers) return;
        if (value == T::kCmdReseed) {
          ++reseeds;
          seeded_ = true;
          istat_ |= T::kIstatSeedDone;
        } else if (value == T::kCmdGenerate && seeded_) {
          ++generates;
          for (auto& w : rand_) w = next_ = next_ * 6364136223846793005ULL % 0xFFFFFFFBu + 1;
          istat_ |= T::kIstatRandReady;
          if (generates == lockup_on_generate) istat_ |= T::kIstatLfsrLockup;
        }
        return;
      case T::kMode:
        mode_ = value;
        return;
      case T::kIstat:
        istat_ &= ~value;
        return;
      default:
        return;
    }
  }

 private:
  bool seeded_ = false;
  std::uint32_t mode_ = 0, istat_ = T::kIstatRandReady;  // a stale bit from before
  std::uint64_t next_ = 12345;
  std::array<std::uint32_t, 8> rand_{};
};

TEST(Jh7110Trng, InitReseedsFromNoiseThenGeneratesBlocks) {
  TrngModel model;
  T trng;
  ASSERT_TRUE(trng.init(mmio::Registers(0, &model)).ok());
  EXPECT_EQ(model.reseeds, 1);
  EXPECT_EQ(trng.block_bytes(), 32u);
  std::array<std::byte, 100> a{};
  ASSERT_TRUE(trng.read(a).ok());
  EXPECT_EQ(model.generates, 4);  // 100 bytes = 4 blocks of 32
  std::array<std::byte, 100> b{};
  ASSERT_TRUE(trng.read(b).ok());
  EXPECT_NE(a, b);
  EXPECT_EQ(model.ctrl_writes.front(), T::kCmdReseed);
}

TEST(Jh7110Trng, WithoutR256ItReadsFourWords) {
  TrngModel model;
  model.r256_sticks = false;
  T trng;
  ASSERT_TRUE(trng.init(mmio::Registers(0, &model)).ok());
  EXPECT_EQ(trng.block_bytes(), 16u);
  std::array<std::byte, 32> out{};
  ASSERT_TRUE(trng.read(out).ok());
  EXPECT_EQ(model.generates, 2);
}

TEST(Jh7110Trng, LockupDiscardsTheBlockAndReseeds) {
  TrngModel model;
  model.lockup_on_generate = 2;
  T trng;
  ASSERT_TRUE(trng.init(mmio::Registers(0, &model)).ok());
  std::array<std::byte, 64> out{};
  ASSERT_TRUE(trng.read(out).ok());
  EXPECT_EQ(trng.stats().lockups, 1u);
  EXPECT_EQ(model.reseeds, 2);
  EXPECT_EQ(model.generates, 3);  // the locked-up block was not used
  EXPECT_EQ(trng.stats().blocks, 2u);
}

TEST(Jh7110Trng, ReseedsEveryFewBlocks) {
  TrngModel model;
  T trng;
  ASSERT_TRUE(trng.init(mmio::Registers(0, &model)).ok());
  std::vector<std::byte> out(32 * (T::kReseedEvery + 1));
  ASSERT_TRUE(trng.read(out).ok());
  EXPECT_EQ(model.reseeds, 2);
}

TEST(Jh7110Trng, ABlockThatNeverAnswersTimesOut) {
  TrngModel model;
  model.answers = false;
  T trng;
  auto r = trng.init(mmio::Registers(0, &model));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
  std::array<std::byte, 8> out{};
  auto again = trng.read(out);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace starling::trng
