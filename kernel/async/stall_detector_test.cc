#include "kernel/async/stall_detector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel/async/executor.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/yield.h"
#include "kernel/hal/busy_tick.h"
#include "kernel/lib/result.h"

namespace starling::async {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

std::vector<StallReport>& reported() {
  static std::vector<StallReport> reports;
  return reports;
}

bool record(const StallReport& report) {
  reported().push_back(report);
  return true;
}

// A console in the middle of someone's line: declines while it may.
int declines_left = 0;
bool record_when_free(const StallReport& report) {
  if (report.may_wait && declines_left > 0) {
    --declines_left;
    return false;
  }
  return record(report);
}

class StallDetectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reported().clear();
    detector_.set_threshold(10 * kMs);
  }
  // Samples one run (sequence) every `period` from `start` to `end`, inclusive.
  void run(std::uint64_t sequence, std::uint64_t start, std::uint64_t end,
           std::uint64_t period = 2'500'000) {
    for (std::uint64_t t = start; t <= end; t += period) {
      detector_.sample(sequence, t, {.pc = 0x1000 + t, .fp = 0x2000});
    }
  }
  StallDetector detector_{&record};
};

TEST_F(StallDetectorTest, SamplesAQuarterOfTheThreshold) {
  EXPECT_EQ(detector_.sample_period_ns(), 2'500'000u);
}

TEST_F(StallDetectorTest, ReportsARunOnceItHasBeenSeenForTheThreshold) {
  run(1, 100 * kMs, 100 * kMs + 7'500'000);  // seen for 7.5 ms: not yet
  EXPECT_TRUE(reported().empty());
  EXPECT_EQ(detector_.longest_ns(), 7'500'000u);
  detector_.sample(1, 110 * kMs, {.pc = 0xabc, .fp = 0xdef});  // seen for 10 ms
  ASSERT_EQ(reported().size(), 1u);
  EXPECT_EQ(reported()[0].ran_ns, 10 * kMs);
  EXPECT_EQ(reported()[0].threshold_ns, 10 * kMs);
  EXPECT_EQ(reported()[0].where.pc, 0xabcu);
  EXPECT_EQ(reported()[0].where.fp, 0xdefu);
  EXPECT_EQ(reported()[0].suppressed_before, 0u);
  // Still the same run 40 ms later: reported once, the longest keeps growing.
  run(1, 112'500'000, 150 * kMs);
  EXPECT_EQ(reported().size(), 1u);
  EXPECT_EQ(detector_.stalls(), 1u);
  EXPECT_EQ(detector_.reports(), 1u);
  EXPECT_EQ(detector_.longest_ns(), 50 * kMs);
}

TEST_F(StallDetectorTest, ShortRunsAndTheGapsBetweenTasksAreNeverStalls) {
  // A new run (odd sequence) every sample, and even sequences (the executor
  // between tasks, or idle) for 100 ms: the hart was handed back each time.
  std::uint64_t t = 0;
  for (std::uint64_t sequence = 1; sequence < 200; ++sequence, t += 2'500'000) {
    detector_.sample(sequence, t, {});
  }
  EXPECT_TRUE(reported().empty());
  EXPECT_EQ(detector_.stalls(), 0u);
  EXPECT_EQ(detector_.samples(), 199u);
}

TEST_F(StallDetectorTest, ARunInterruptedByTheExecutorStartsOver) {
  run(3, 0, 7'500'000);
  detector_.sample(4, 8 * kMs, {});  // back in the executor
  run(3, 9 * kMs, 16 * kMs);         // the same number again must not join the old run
  EXPECT_TRUE(reported().empty());
}

TEST_F(StallDetectorTest, AtMostFiveReportsAMinuteAndTheNextSaysHowManyWereLeftOut) {
  std::uint64_t t = 1'000 * kMs;
  for (std::uint64_t run_number = 0; run_number < 8; ++run_number) {
    run(2 * run_number + 1, t, t + 10 * kMs);
    t += 20 * kMs;
  }
  EXPECT_EQ(detector_.stalls(), 8u);
  EXPECT_EQ(detector_.reports(), kStallReportsPerMinute);
  EXPECT_EQ(detector_.suppressed(), 3u);
  EXPECT_EQ(reported().size(), kStallReportsPerMinute);
  // A minute after the first report, reports are told again.
  t = 1'000 * kMs + 60'000 * kMs;
  run(101, t, t + 10 * kMs);
  ASSERT_EQ(reported().size(), kStallReportsPerMinute + 1);
  EXPECT_EQ(reported().back().suppressed_before, 3u);
}

TEST(StallDetectorWaiting, AReportWaitsForTheConsoleThenComesOnce) {
  reported().clear();
  StallDetector detector(&record_when_free);
  detector.set_threshold(10 * kMs);
  declines_left = 3;
  for (std::uint64_t t = 0; t <= 30 * kMs; t += 2'500'000) detector.sample(7, t, {.pc = t});
  ASSERT_EQ(reported().size(), 1u);
  EXPECT_EQ(reported()[0].where.pc, 17'500'000u);  // three samples after the threshold
  EXPECT_EQ(detector.stalls(), 1u);
  EXPECT_EQ(detector.reports(), 1u);
}

TEST(StallDetectorWaiting, ANeverFreeConsoleGetsTheReportAnyway) {
  reported().clear();
  StallDetector detector(&record_when_free);
  detector.set_threshold(10 * kMs);
  declines_left = 1'000;
  for (std::uint64_t t = 0; t <= 100 * kMs; t += 2'500'000) detector.sample(9, t, {});
  ASSERT_EQ(reported().size(), 1u);
  EXPECT_FALSE(reported()[0].may_wait);
  EXPECT_EQ(reported()[0].ran_ns, (10 + 2.5 * kStallReportMaxWaits) * kMs);
}

TEST_F(StallDetectorTest, ThresholdZeroIsOff) {
  detector_.set_threshold(0);
  EXPECT_EQ(detector_.sample_period_ns(), 0u);
  run(1, 0, 1'000 * kMs);
  EXPECT_TRUE(reported().empty());
  EXPECT_EQ(detector_.longest_ns(), 0u);
}

TEST(StallThreshold, FromTheKernelCommandLine) {
  EXPECT_EQ(stall_threshold_from_bootargs(""), kDefaultStallThresholdNs);
  EXPECT_EQ(stall_threshold_from_bootargs("ip=dhcp"), kDefaultStallThresholdNs);
  EXPECT_EQ(stall_threshold_from_bootargs("ip=dhcp starling.stall_ms=25"), 25 * kMs);
  EXPECT_EQ(stall_threshold_from_bootargs("starling.stall_ms=0"), 0u);
  EXPECT_EQ(stall_threshold_from_bootargs("starling.stall_ms=60000"), 60'000 * kMs);
  // Each refused with a console line, the default kept.
  for (const char* bad : {"starling.stall_ms=", "starling.stall_ms=10ms", "starling.stall_ms=-1",
                          "starling.stall_ms=60001", "starling.stall_ms=5 starling.stall_ms=6"}) {
    EXPECT_EQ(stall_threshold_from_bootargs(bad), kDefaultStallThresholdNs) << bad;
  }
}

TEST(StallDetectorStart, TheHostBoardHasNoBusyTick) {
  auto started = start_stall_detector(10 * kMs);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error(), Error::kUnsupported);
  EXPECT_EQ(stall_detector().threshold_ns(), 0u);  // nothing sampled, nothing claimed
  EXPECT_TRUE(start_stall_detector(0).ok());
}

// The executor's side: odd while a task runs, a new value at every resumption
// and every should_yield(), even between tasks.
using RunSequenceTest = testing::RuntimeTest;

Task<void> note_sequences(std::vector<std::uint64_t>* seen) {
  const Executor& executor = Executor::current();
  seen->push_back(executor.run_sequence());
  co_await yield();  // nobody else waits: no suspension, but a new run
  seen->push_back(executor.run_sequence());
  co_return {};
}

TEST_F(RunSequenceTest, OddInsideATaskAndNewAtEveryOfferOfTheHart) {
  std::vector<std::uint64_t> seen;
  EXPECT_EQ(executor_.run_sequence() % 2, 0u);
  ASSERT_TRUE(executor_.block_on(note_sequences(&seen)).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0] % 2, 1u);
  EXPECT_EQ(seen[1] % 2, 1u);
  EXPECT_GT(seen[1], seen[0]);
  EXPECT_EQ(executor_.run_sequence() % 2, 0u);
  EXPECT_GT(executor_.run_sequence(), seen[1]);
}

}  // namespace
}  // namespace starling::async
