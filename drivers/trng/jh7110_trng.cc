#include "drivers/trng/jh7110_trng.h"

#include <algorithm>
#include <cstring>

namespace starling::trng {

Result<void> Jh7110Trng::init(mmio::Registers regs) {
  regs_ = regs;
  ready_ = false;
  // Polled: no interrupt, and every stale status bit cleared (W1C).
  regs_.write(kIe, 0);
  regs_.write(kIstat, kIstatAll);
  // No hardware auto-reseed: this driver reseeds itself (kReseedEvery).
  regs_.write(kAutoRqsts, 0);
  regs_.write(kAutoAge, 0);
  regs_.update(kMode, 0, kModeR256);
  block_bytes_ = (regs_.read(kStat) & kStatR256) != 0 ? 32 : 16;
  if (auto ok = reseed(); !ok.ok()) return ok;
  ready_ = true;
  return {};
}

Result<void> Jh7110Trng::wait_idle() {
  for (std::uint32_t polls = 0; polls < kPollLimit; ++polls) {
    if ((regs_.read(kStat) & (kStatGenerating | kStatReseeding)) == 0) return {};
  }
  return Unexpected(Error::kTimedOut);
}

Result<void> Jh7110Trng::command(std::uint32_t cmd, std::uint32_t done_bit) {
  if (auto ok = wait_idle(); !ok.ok()) return ok;
  regs_.write(kCtrl, cmd);
  for (std::uint32_t polls = 0; polls < kPollLimit; ++polls) {
    if ((regs_.read(kIstat) & done_bit) != 0) {
      // W1C. No fence before the RAND reads that follow: device registers
      // are a strongly ordered I/O region (RISC-V PMA), read in order.
      regs_.write(kIstat, done_bit);
      return {};
    }
  }
  return Unexpected(Error::kTimedOut);
}

Result<void> Jh7110Trng::reseed() {
  if (auto ok = command(kCmdReseed, kIstatSeedDone); !ok.ok()) return ok;
  if ((regs_.read(kStat) & kStatSeeded) == 0) return Unexpected(Error::kDeviceError);
  ++stats_.reseeds;
  since_reseed_ = 0;
  return {};
}

Result<void> Jh7110Trng::read(std::span<std::byte> out) {
  if (!ready_) return Unexpected(Error::kInvalidArgument);
  int lockups = 0;
  while (!out.empty()) {
    if (since_reseed_ >= kReseedEvery || (regs_.read(kStat) & kStatSeeded) == 0) {
      if (auto ok = reseed(); !ok.ok()) return ok;
    }
    if (auto ok = command(kCmdGenerate, kIstatRandReady); !ok.ok()) return ok;
    if ((regs_.read(kIstat) & kIstatLfsrLockup) != 0) {
      // A single-event upset in the PRNG: this block is not to be trusted.
      regs_.write(kIstat, kIstatLfsrLockup);
      ++stats_.lockups;
      if (++lockups == kMaxLockups) return Unexpected(Error::kDeviceError);
      if (auto ok = reseed(); !ok.ok()) return ok;
      continue;
    }
    std::uint32_t words[8];
    const std::size_t count = block_bytes_ / 4;
    for (std::size_t i = 0; i < count; ++i) {
      words[i] = regs_.read(kRand0 + 4 * static_cast<std::uint32_t>(i));
    }
    const std::size_t n = std::min(out.size(), block_bytes_);
    std::memcpy(out.data(), words, n);
    std::memset(words, 0, sizeof words);
    out = out.subspan(n);
    ++since_reseed_;
    ++stats_.blocks;
  }
  return {};
}

}  // namespace starling::trng
