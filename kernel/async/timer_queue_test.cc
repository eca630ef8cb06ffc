#include "kernel/async/timer_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace starling::async {
namespace {

std::vector<int>* g_fired = nullptr;

struct TestTimer {
  TimerNode node;  // first: the callback casts back
  int id = 0;
};

void record(TimerNode& node) noexcept {
  g_fired->push_back(reinterpret_cast<TestTimer&>(node).id);
}

TEST(TimerQueue, ExpiresInDeadlineOrderThenInsertionOrder) {
  std::vector<int> fired;
  g_fired = &fired;
  TimerQueue q;
  TestTimer t[5];
  const std::uint64_t deadlines[5] = {30, 10, 20, 10, 40};
  for (int i = 0; i < 5; ++i) {
    t[i].id = i;
    q.insert(t[i].node, deadlines[i], &record);
  }
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(q.top(), &t[1].node);
  EXPECT_EQ(q.expire_until(25), 3u);
  EXPECT_EQ(fired, (std::vector<int>{1, 3, 2}));
  EXPECT_EQ(q.top()->deadline(), 30u);
  q.remove(t[4].node);
  EXPECT_FALSE(t[4].node.linked());
  EXPECT_EQ(q.expire_until(1000), 1u);
  EXPECT_EQ(fired, (std::vector<int>{1, 3, 2, 0}));
  EXPECT_TRUE(q.empty());
}

// Against a reference (multimap keyed by deadline, then insertion order),
// with random inserts, removals of arbitrary nodes and partial expiries.
TEST(TimerQueue, MatchesReferenceUnderRandomOperations) {
  std::vector<int> fired;
  g_fired = &fired;
  std::mt19937_64 rng(1234);
  constexpr int kTimers = 2000;
  std::vector<TestTimer> timers(kTimers);
  std::map<std::pair<std::uint64_t, int>, int> reference;  // (deadline, seq) -> id
  std::vector<std::pair<std::uint64_t, int>> key(kTimers);
  TimerQueue q;
  int seq = 0;
  std::uint64_t now = 0;
  for (int round = 0; round < 20000; ++round) {
    const int id = static_cast<int>(rng() % kTimers);
    TestTimer& t = timers[id];
    t.id = id;
    switch (rng() % 4) {
      case 0:
      case 1:
        if (!t.node.linked()) {
          const std::uint64_t d = now + rng() % 1000;
          q.insert(t.node, d, &record);
          key[id] = {d, seq++};
          reference[key[id]] = id;
        }
        break;
      case 2:
        if (t.node.linked()) {
          q.remove(t.node);
          reference.erase(key[id]);
        }
        break;
      case 3: {
        now += rng() % 50;
        fired.clear();
        q.expire_until(now);
        std::vector<int> expected;
        while (!reference.empty() && reference.begin()->first.first <= now) {
          expected.push_back(reference.begin()->second);
          reference.erase(reference.begin());
        }
        ASSERT_EQ(fired, expected) << "round " << round;
        break;
      }
    }
    ASSERT_EQ(q.size(), reference.size());
    if (!reference.empty()) ASSERT_EQ(q.top()->deadline(), reference.begin()->first.first);
  }
  while (TimerNode* n = q.pop()) (void)n;
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace starling::async
