#include "kernel/async/event.h"

#include <gtest/gtest.h>

#include <string>

#include "kernel/async/scope.h"
#include "kernel/async/task.h"
#include "kernel/async/test_support.h"

namespace starling::async {
namespace {

using EventTest = testing::RuntimeTest;

Task<void> wait_and_log(Event& e, std::string* log, char id) {
  co_await e.wait();
  log->push_back(id);
  co_return {};
}

Task<void> set_later(Event& e, std::string* log) {
  log->push_back('!');
  e.set();
  co_return {};
}

TEST_F(EventTest, SetWakesEveryWaiterInOrder) {
  Event e;
  std::string log;
  ASSERT_TRUE(executor_.spawn(wait_and_log(e, &log, 'a')).ok());
  ASSERT_TRUE(executor_.spawn(wait_and_log(e, &log, 'b')).ok());
  ASSERT_TRUE(executor_.spawn(set_later(e, &log)).ok());
  ASSERT_TRUE(executor_.spawn(wait_and_log(e, &log, 'c')).ok());  // already set by then
  executor_.run();
  EXPECT_EQ(log, "!cab");
  EXPECT_TRUE(e.is_set());
}

TEST_F(EventTest, WaitOnASetEventCompletesAtOnceUntilReset) {
  Event e;
  e.set();
  std::string log;
  ASSERT_TRUE(executor_.block_on(wait_and_log(e, &log, 'a')).ok());
  EXPECT_EQ(log, "a");
  e.reset();
  Result<void> r = executor_.block_on(wait_and_log(e, &log, 'b'));
  ASSERT_FALSE(r.ok());  // nobody will set it: cancelled, not hung
  EXPECT_EQ(log, "a");
}

TEST_F(EventTest, CancelledWaiterIsUnlinked) {
  Event e;
  std::string log;
  {
    Scope scope;
    ASSERT_TRUE(scope.spawn(wait_and_log(e, &log, 'x')).ok());
    ASSERT_TRUE(executor_.spawn(wait_and_log(e, &log, 'y')).ok());
    executor_.run();
  }
  e.set();  // only 'y' is still waiting
  executor_.run();
  EXPECT_EQ(log, "y");
}

}  // namespace
}  // namespace starling::async
