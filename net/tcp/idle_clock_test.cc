#include "net/tcp/idle_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace starling::net {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

// The limits are far apart (50 ms under pressure, 10 s otherwise), so a test
// process descheduled on a loaded machine cannot pass the long one.
constexpr IdlePolicy kPolicy{.idle_ns = 10'000 * kMs, .pressed_idle_ns = 50 * kMs};

TEST(IdleClockTest, AWaitIsNeverLongerThanTheLookAgainPeriod) {
  IdleClock idle(kPolicy);
  const std::uint64_t wait = idle.next_wait_ns(false);
  EXPECT_GT(wait, 0u);
  EXPECT_LE(wait, IdleClock::kLookAgainNs);
  EXPECT_FALSE(idle.closed_under_pressure());
}

TEST(IdleClockTest, PressureShortensTheLimitOfAConnectionAlreadyWaiting) {
  IdleClock idle(kPolicy);
  EXPECT_GT(idle.next_wait_ns(false), 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  // Quiet 60 ms: within the normal limit, past the pressed one.
  EXPECT_GT(idle.next_wait_ns(false), 0u);
  EXPECT_EQ(idle.next_wait_ns(true), 0u);
  EXPECT_TRUE(idle.closed_under_pressure());
}

TEST(IdleClockTest, UnderPressureTheWaitEndsAtThePressedLimit) {
  IdleClock idle(kPolicy);
  EXPECT_LE(idle.next_wait_ns(true), kPolicy.pressed_idle_ns);
}

TEST(IdleClockTest, HearingFromThePeerStartsItsQuietTimeAgain) {
  IdleClock idle(kPolicy);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(idle.next_wait_ns(true), 0u);
  idle.heard();
  EXPECT_GT(idle.next_wait_ns(true), 0u);
}

TEST(IdleClockTest, PressureIsMoreThanThreeQuartersHeld) {
  EXPECT_FALSE(table_pressed(0, 128));
  EXPECT_FALSE(table_pressed(96, 128));
  EXPECT_TRUE(table_pressed(97, 128));
  EXPECT_TRUE(table_pressed(128, 128));
  EXPECT_FALSE(table_pressed(48, 64));
  EXPECT_TRUE(table_pressed(49, 64));
  EXPECT_FALSE(table_pressed(0, 0));
}

}  // namespace
}  // namespace starling::net
