#include <vector>

#include <gtest/gtest.h>

#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/model/test_rig.h"

namespace starling::model {
namespace {

using testing::frame_to_us;
using testing::Rig;
namespace facts = testing::facts;

class DwmacInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(rig.init());
    rig.mac().on_interrupt_line([this](bool level) { edges.push_back(level); });
    for (std::uint32_t i = 0; i < 4; ++i) rig.arm_rx(i);
    rig.rx_tail(4);
    rig.write(facts::kCh0Status, 0xFFFF'FFFF);  // start clean (TBU from the empty TX ring)
  }

  void receive_one() {
    ASSERT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), DwmacModel::RxOutcome::kDelivered);
  }

  Rig rig;
  std::vector<bool> edges;
};

// docs/hardware/dwmac.md §4.2 "A source bit reaches the interrupt line only if its own
// enable and NIE/AIE are set"; the status bit is set regardless.
TEST_F(DwmacInterrupt, StatusIsSetEvenWhenMasked) {
  receive_one();
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kRi, 0u);
  EXPECT_EQ(rig.read(facts::kCh0Status) & facts::kNis, 0u);  // not enabled: no summary
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_TRUE(edges.empty());
}

TEST_F(DwmacInterrupt, SourceEnableWithoutSummaryEnableKeepsTheLineLow) {
  rig.write(facts::kCh0InterruptEnable, facts::kRi);  // RIE but not NIE
  receive_one();
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kNis, 0u);  // NIS summarises enabled sources
  rig.write(facts::kCh0InterruptEnable, facts::kRi | facts::kNie);
  EXPECT_TRUE(rig.mac().interrupt_line());  // enabling with a source pending raises it
}

// docs/hardware/dwmac.md §4.2 "All flag bits are write-1-to-clear; writing 0 has no effect; NIS/AIS
// are sticky and must also be cleared by writing 1".
TEST_F(DwmacInterrupt, LineFollowsW1c) {
  rig.write(facts::kCh0InterruptEnable, facts::kRi | facts::kTi | facts::kNie);
  receive_one();
  EXPECT_TRUE(rig.mac().interrupt_line());
  EXPECT_EQ(rig.read(facts::kDmaInterruptStatus) & 1u, 1u);  // docs/hardware/dwmac.md §4.1 DC0IS
  rig.write(facts::kCh0Status, 0);                           // writing 0: no effect
  EXPECT_TRUE(rig.mac().interrupt_line());
  rig.write(facts::kCh0Status, facts::kTi);  // not pending: no effect
  EXPECT_TRUE(rig.mac().interrupt_line());
  rig.write(facts::kCh0Status, facts::kRi);
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_EQ(rig.read(facts::kDmaInterruptStatus) & 1u, 0u);
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kNis, 0u);  // sticky
  rig.write(facts::kCh0Status, facts::kNis);
  EXPECT_EQ(rig.read(facts::kCh0Status), 0u);
  EXPECT_EQ(edges, (std::vector<bool>{true, false}));
}

// docs/hardware/dwmac.md §4.2 table groups: RBU abnormal (AIS/AIE), RI normal (NIS/NIE);
// docs/hardware/dwmac.md §4.2 "NIE=bit 15, AIE=bit 14 ... don't use 16/15".
TEST_F(DwmacInterrupt, AbnormalSourcesNeedAie) {
  rig.write(facts::kCh0InterruptEnable, facts::kRbu | facts::kNie);
  // Fill the four descriptors, then one more frame finds none: RBU.
  for (int i = 0; i < 4; ++i) receive_one();
  EXPECT_EQ(rig.mac().receive_from_wire(frame_to_us(60)), DwmacModel::RxOutcome::kQueued);
  const std::uint32_t status = rig.read(facts::kCh0Status);
  EXPECT_NE(status & facts::kRbu, 0u);
  EXPECT_NE(status & facts::kAis, 0u);
  EXPECT_EQ(status & facts::kNis, 0u);
  EXPECT_FALSE(rig.mac().interrupt_line());
  rig.write(facts::kCh0InterruptEnable, facts::kRbu | facts::kAie);
  EXPECT_TRUE(rig.mac().interrupt_line());
  rig.write(facts::kCh0Status, facts::kRbu | facts::kAis);
  EXPECT_FALSE(rig.mac().interrupt_line());
}

// docs/hardware/dwmac.md §4.2 Linux "writes back status & enable": clearing what was handled leaves
// a source that arrived meanwhile pending, and the line stays up.
TEST_F(DwmacInterrupt, ALaterSourceKeepsTheLineUp) {
  rig.write(facts::kCh0InterruptEnable, facts::kRi | facts::kTi | facts::kNie);
  receive_one();
  const std::uint32_t handled = rig.read(facts::kCh0Status);
  rig.post_tx(0, frame_to_us(60));
  rig.tx_tail(1);  // TI arrives before the handler acknowledges RI
  rig.write(facts::kCh0Status, handled & (facts::kRi | facts::kNis));
  EXPECT_TRUE(rig.mac().interrupt_line());
  EXPECT_NE(rig.read(facts::kCh0Status) & facts::kTi, 0u);
  rig.write(facts::kCh0Status, facts::kTi | facts::kNis);
  EXPECT_FALSE(rig.mac().interrupt_line());
}

// docs/hardware/dwmac.md §4.2 FBE with FBEE|AIE; "TEB/REB ... valid with FBE": cleared with it.
TEST_F(DwmacInterrupt, FatalBusErrorRaisesTheLineAndW1cClearsTebReb) {
  rig.write(facts::kCh0InterruptEnable, facts::kFbe | facts::kAie);
  rig.mac().inject_fatal_bus_error(DwmacModel::Channel::kTx);
  rig.post_tx(0, frame_to_us(60));
  rig.tx_tail(1);
  EXPECT_TRUE(rig.mac().interrupt_line());
  rig.write(facts::kCh0Status, facts::kFbe | facts::kAis | facts::kTps);
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_EQ(rig.read(facts::kCh0Status), 0u);
}

// docs/hardware/dwmac.md §4.2 SWR resets the enables: the line falls.
TEST_F(DwmacInterrupt, SoftResetDropsTheLine) {
  rig.write(facts::kCh0InterruptEnable, facts::kRi | facts::kNie);
  receive_one();
  ASSERT_TRUE(rig.mac().interrupt_line());
  rig.write(facts::kDmaMode, facts::kSwr);
  EXPECT_FALSE(rig.mac().interrupt_line());
  EXPECT_EQ(edges, (std::vector<bool>{true, false}));
}

}  // namespace
}  // namespace starling::model
