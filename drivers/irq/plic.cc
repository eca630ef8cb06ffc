#include "drivers/irq/plic.h"

namespace starling {

void Plic::init() const {
  // Threshold 0 first would let a stale enable through; enables go off first.
  for (std::uint32_t word = 0; word <= config_.num_sources / 32; ++word) {
    reg(kEnable + kEnableStride * config_.context + 4 * word) = 0;
  }
  for (std::uint32_t source = 1; source <= config_.num_sources; ++source) {
    reg(kPriority + 4 * source) = 0;
  }
  set_threshold(0);
}

void Plic::set_priority(std::uint32_t source, std::uint32_t priority) const {
  if (valid(source)) {
    reg(kPriority + 4 * source) = priority;
  }
}

void Plic::enable(std::uint32_t source) const {
  if (valid(source)) {
    enable_word(source) = enable_word(source) | (1u << (source % 32));
  }
}

void Plic::disable(std::uint32_t source) const {
  if (valid(source)) {
    enable_word(source) = enable_word(source) & ~(1u << (source % 32));
  }
}

bool Plic::enabled(std::uint32_t source) const {
  return valid(source) && (enable_word(source) & (1u << (source % 32))) != 0;
}

void Plic::set_threshold(std::uint32_t threshold) const {
  context_reg(kThreshold) = threshold;
}

std::uint32_t Plic::claim() const {
  return context_reg(kClaimComplete);
}

void Plic::complete(std::uint32_t source) const {
  context_reg(kClaimComplete) = source;
}

}  // namespace starling
