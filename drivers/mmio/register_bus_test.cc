#include "drivers/mmio/register_bus.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace starling::mmio {
namespace {

// A model with 32-bit registers only: the narrow reads come from the
// RegisterBus defaults, a byte write is a 32-bit store of the byte.
class WordModel final : public RegisterBus {
 public:
  std::uint32_t read32(std::uint32_t offset) override { return offset == 0x10 ? 0xA1B2C3D4u : 0; }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    writes.push_back({offset, value});
  }
  struct Write {
    std::uint32_t offset, value;
  };
  std::vector<Write> writes;
};

TEST(Registers, NarrowReadsOfAWordModelTakeLittleEndianLanes) {
  WordModel model;
  const Registers regs(0, &model);
  EXPECT_EQ(regs.read(0x10), 0xA1B2C3D4u);
  EXPECT_EQ(regs.read16(0x10), 0xC3D4u);
  EXPECT_EQ(regs.read16(0x12), 0xA1B2u);
  EXPECT_EQ(regs.read8(0x10), 0xD4u);
  EXPECT_EQ(regs.read8(0x13), 0xA1u);
  regs.write8(0x14, 0x5A);
  ASSERT_EQ(model.writes.size(), 1u);
  EXPECT_EQ(model.writes[0].offset, 0x14u);
  EXPECT_EQ(model.writes[0].value, 0x5Au);
}

TEST(Registers, WithoutAModelEveryWidthIsOneAccessToMemory) {
  alignas(4) std::array<std::uint8_t, 8> memory{0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0};
  const Registers regs(reinterpret_cast<std::uintptr_t>(memory.data()));
  EXPECT_EQ(regs.read(0), 0x44332211u);
  EXPECT_EQ(regs.read16(2), 0x4433u);
  EXPECT_EQ(regs.read8(1), 0x22u);
  regs.write8(5, 0x99);
  EXPECT_EQ(memory[5], 0x99u);
  EXPECT_EQ(memory[4], 0u);  // a byte store touches one byte
  regs.update(4, 0x0000FF00u, 0x1u);
  EXPECT_EQ(regs.read(4), 0x1u);
}

}  // namespace
}  // namespace starling::mmio
