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

// The handler runs between the claim and anything dispatch() does after it:
// it clears the claim/complete word, so a completion written afterwards
// would show there.
void record_and_clear_claim(void* context) {
  record(context);
  auto* calls = static_cast<Calls*>(context);
  calls->fixture->at(kClaim) = 0;
}

TEST_F(IrqTest, DispatchCallsHandlerAndCompletesOnlyAtUnmask) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record_and_clear_claim, &calls).ok());
  at(kClaim) = 10;  // the PLIC offers source 10
  EXPECT_EQ(irq::dispatch(), 10u);
  EXPECT_EQ(calls.count, 1);
  EXPECT_EQ(irq::delivered_count(10), 1u);
  EXPECT_EQ(irq::delivered_count(11), 0u);
  EXPECT_TRUE(calls.source_enabled_during_call);
  // One-shot: claimed, not completed (the PLIC's gateway stays closed) and
  // the enable bit never touched.
  EXPECT_EQ(at(kClaim), 0u);
  EXPECT_TRUE(enabled(10));
  irq::unmask(10);
  EXPECT_EQ(at(kClaim), 10u);  // completed with its id
  EXPECT_TRUE(enabled(10));
  at(kClaim) = 0;
  irq::unmask(10);  // nothing delivered since: nothing to complete
  EXPECT_EQ(at(kClaim), 0u);
}

TEST_F(IrqTest, MaskDisablesAndUnmaskEnablesBeforeCompleting) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record_and_clear_claim, &calls).ok());
  irq::mask(10);
  EXPECT_FALSE(enabled(10));
  irq::unmask(10);
  EXPECT_TRUE(enabled(10));
  EXPECT_EQ(at(kClaim), 0u);  // nothing was claimed
  at(kClaim) = 10;
  EXPECT_EQ(irq::dispatch(), 10u);
  irq::mask(10);
  irq::unmask(10);  // enabled again, then completed (a disabled source's completion is ignored)
  EXPECT_TRUE(enabled(10));
  EXPECT_EQ(at(kClaim), 10u);
}

TEST_F(IrqTest, NothingPendingCallsNothing) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record, &calls).ok());
  at(kClaim) = 0;
  EXPECT_EQ(irq::dispatch(), 0u);
  EXPECT_EQ(calls.count, 0);
  EXPECT_TRUE(enabled(10));
}

TEST_F(IrqTest, UnhandledSourceIsCountedAndNeverCompleted) {
  at(kEnable) = 1u << 5;  // enabled behind the registry's back
  at(kClaim) = 5;
  EXPECT_EQ(irq::dispatch(), 5u);
  EXPECT_EQ(irq::spurious_count(), 1u);
  at(kClaim) = 0;
  irq::unmask(5);  // no handler: its gateway stays closed
  EXPECT_EQ(at(kClaim), 0u);
  // A handler attached later gets the source completed, or it would never fire.
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(5, &record, &calls).ok());
  EXPECT_EQ(at(kClaim), 5u);
  EXPECT_TRUE(enabled(5));
}

TEST_F(IrqTest, DetachMasksAndFrees) {
  Calls calls{.fixture = this};
  ASSERT_TRUE(irq::attach(10, &record_and_clear_claim, &calls).ok());
  irq::detach(10);
  EXPECT_FALSE(enabled(10));
  EXPECT_EQ(at(4 * 10), 0u);
  EXPECT_TRUE(irq::attach(10, &record_and_clear_claim, &calls).ok());
  at(kClaim) = 10;
  EXPECT_EQ(irq::dispatch(), 10u);
  irq::detach(10);  // delivered, not completed: detach reopens the gateway
  EXPECT_EQ(at(kClaim), 10u);
  EXPECT_FALSE(enabled(10));
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
