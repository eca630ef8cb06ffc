// Only toolchain headers: compiles for riscv64.
#include <cstdint>
#include <span>

std::uint32_t sum(std::span<const std::uint32_t> values) {
  std::uint32_t total = 0;
  for (auto v : values) total += v;
  return total;
}
