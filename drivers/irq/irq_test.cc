// Host test: the interrupt registry over a PLIC on plain memory.

#include "drivers/irq/irq.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel/hal/clock.h"

// The registry masks interrupts around PLIC updates; on the host there are
// none to mask. Counted, to check that it does.
namespace {
int mask_calls = 0;
}  // namespace

namespace starling::hal {
bool mask_interrupts() {
  ++mask_calls;
  return false;
}
void restore_interrupts(bool /*were_enabled*/) {}
}  // namespace starling::hal

namespace starling {
namespace {

constexpr std::uint32_t kContext = 1;
constexpr std::uintptr_t kEnable = 0x2000 + 0x80 * kContext;
constexpr std::uintptr_t kClaim = 0x200004 + 0x1000 * kContext;

struct Fixture : ::testing::Test {
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(0x202000 / 4, 0);
  Plic plic{{reinterpret_cast<std::uintptr_t>(words.data()), kContext, 95}};

  void SetUp() override {
    plic.init();
    irq::init(plic);
  }
  std::uint32_t& at(std::uintptr_t offset) { return words[offset / 4]; }
  bool enabled(std::uint32_t source) {
    return (at(kEnable + 4 * (source / 32)) >> (source % 32)) & 1;
  }
};

struct Calls {
  int count = 0;
  bool source_enabled_during_call = false;
  Fixture* fixture = nullptr;
};

void record(void* context) {
  auto* calls = static_cast<Calls*>(context);
  ++calls->count;
  calls->source_enabled_during_call = calls->fixture->enabled(10);
}

using IrqTest = Fixture;

TEST_F(IrqTest, AttachSetsPriorityAndEnables) {
  Calls calls;
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  EXPECT_EQ(at(4 * 10), 1u);
  EXPECT_TRUE(enabled(10));
  EXPECT_GT(mask_calls, 0);
}

TEST_F(IrqTest, AttachRefusesBadArguments) {
  Calls calls;
  EXPECT_EQ(irq::attach(0, &record, &calls).error(), Error::kInvalidArgument);
  EXPECT_EQ(irq::attach(96, &record, &calls).error(), Error::kInvalidArgument);
  EXPECT_EQ(irq::attach(10, nullptr, &calls).error(), Error::kInvalidArgument);
  EXPECT_EQ(irq::attach(10, &record, &calls, 0).error(), Error::kInvalidArgument);
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  EXPECT_EQ(irq::attach(10, &record, &calls).error(), Error::kBusy);
}

TEST_F(IrqTest, DispatchCallsHandlerCompletesAndMasks) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  at(kClaim) = 10;  // the PLIC offers source 10
  EXPECT_EQ(irq::dispatch(), 10u);
  EXPECT_EQ(calls.count, 1);
  EXPECT_EQ(irq::delivered_count(10), 1u);
  EXPECT_EQ(irq::delivered_count(11), 0u);
  EXPECT_TRUE(calls.source_enabled_during_call);
  EXPECT_EQ(at(kClaim), 10u);  // completed with its id
  EXPECT_FALSE(enabled(10));   // one-shot: masked until the driver unmasks
  irq::unmask(10);
  EXPECT_TRUE(enabled(10));
}

TEST_F(IrqTest, NothingPendingCallsNothing) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  at(kClaim) = 0;
  EXPECT_EQ(irq::dispatch(), 0u);
  EXPECT_EQ(calls.count, 0);
  EXPECT_TRUE(enabled(10));
}

TEST_F(IrqTest, UnhandledSourceIsCountedAndMasked) {
  at(kEnable) = 1u << 5;  // enabled behind the registry's back
  at(kClaim) = 5;
  EXPECT_EQ(irq::dispatch(), 5u);
  EXPECT_EQ(irq::spurious_count(), 1u);
  EXPECT_EQ(at(kClaim), 5u);
  EXPECT_FALSE(enabled(5));
  irq::unmask(5);  // no handler: stays masked
  EXPECT_FALSE(enabled(5));
}

TEST_F(IrqTest, DetachMasksAndFrees) {
  Calls calls;
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  irq::detach(10);
  EXPECT_FALSE(enabled(10));
  EXPECT_EQ(at(4 * 10), 0u);
  EXPECT_TRUE(irq::attach(10, &record, &calls).ok());
}

TEST(IrqEmptyPlicTest, NoSourceCanBeAttached) {
  std::vector<std::uint32_t> words(0x202000 / 4, 0);
  Plic none({reinterpret_cast<std::uintptr_t>(words.data()), kContext, 0});
  irq::init(none);
  Calls calls;
  EXPECT_EQ(irq::attach(1, &record, &calls).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace starling
