#ifndef STARLING_DRIVERS_TRNG_JH7110_TRNG_H_
#define STARLING_DRIVERS_TRNG_JH7110_TRNG_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "drivers/mmio/register_bus.h"
#include "kernel/lib/result.h"

// The StarFive JH7110's true random number generator (docs/hardware/
// jh7110-trng.md has the register facts and their sources), polled: used at
// boot for keys, no interrupt, every wait bounded by a poll count.
//
// The block is a PRNG reseeded from a ring-oscillator noise source. init()
// masks and clears its interrupts, selects 256-bit output (MODE.R256),
// leaves hardware auto-reseed off (as Linux does) and issues a reseed from
// the noise source (CTRL = 2), waiting for SEED_DONE. read() issues
// "generate" (CTRL = 1) per 32 bytes (16 if R256 did not take), waits for
// RAND_RDY, and copies RAND0..7. An LFSR lockup flagged meanwhile discards
// the block and reseeds, as Linux's interrupt handler does; the driver also
// reseeds every kReseedEvery blocks, so no seed serves more than 8 KiB.
//
// The clocks and reset the block needs are the board's business (the board
// knows their addresses: platform/star64).
namespace starling::trng {

class Jh7110Trng {
 public:
  // Register offsets (TRM "TRNG control registers"; Linux jh7110-trng.c).
  static constexpr std::uint32_t kCtrl = 0x00;
  static constexpr std::uint32_t kStat = 0x04;
  static constexpr std::uint32_t kMode = 0x08;
  static constexpr std::uint32_t kIe = 0x10;
  static constexpr std::uint32_t kIstat = 0x14;
  static constexpr std::uint32_t kRand0 = 0x20;
  static constexpr std::uint32_t kAutoRqsts = 0x60;
  static constexpr std::uint32_t kAutoAge = 0x64;

  static constexpr std::uint32_t kCmdGenerate = 1;
  static constexpr std::uint32_t kCmdReseed = 2;  // from the internal noise source

  static constexpr std::uint32_t kModeR256 = 1u << 3;
  static constexpr std::uint32_t kStatR256 = 1u << 3;
  static constexpr std::uint32_t kStatSeeded = 1u << 9;
  static constexpr std::uint32_t kStatGenerating = 1u << 30;
  static constexpr std::uint32_t kStatReseeding = 1u << 31;
  static constexpr std::uint32_t kIstatRandReady = 1u << 0;
  static constexpr std::uint32_t kIstatSeedDone = 1u << 1;
  static constexpr std::uint32_t kIstatLfsrLockup = 1u << 4;
  static constexpr std::uint32_t kIstatAll = 0x1F;

  // Register reads before a command counts as not answered. A JH7110 MMIO
  // read takes well over 100 ns, so this is more than 20 ms; Linux allows a
  // command 1 ms and going idle 100 ms.
  static constexpr std::uint32_t kPollLimit = 200'000;
  static constexpr std::uint32_t kReseedEvery = 256;  // blocks
  static constexpr int kMaxLockups = 4;               // per read() before giving up

  struct Stats {
    std::uint64_t blocks = 0;
    std::uint64_t reseeds = 0;
    std::uint64_t lockups = 0;
  };

  // kTimedOut: the block never reported the reseed done (its clock off or
  // held in reset, or absent); kDeviceError: it says it is not seeded.
  Result<void> init(mmio::Registers regs);
  // Fills `out`. kTimedOut / kDeviceError as above, or kInvalidArgument
  // before a successful init(); kDeviceError after kMaxLockups lockups.
  Result<void> read(std::span<std::byte> out);

  std::size_t block_bytes() const { return block_bytes_; }
  const Stats& stats() const { return stats_; }

 private:
  Result<void> wait_idle();
  Result<void> command(std::uint32_t cmd, std::uint32_t done_bit);
  Result<void> reseed();

  mmio::Registers regs_;
  bool ready_ = false;
  std::size_t block_bytes_ = 32;
  std::uint32_t since_reseed_ = 0;
  Stats stats_;
};

}  // namespace starling::trng

#endif  // STARLING_DRIVERS_TRNG_JH7110_TRNG_H_
