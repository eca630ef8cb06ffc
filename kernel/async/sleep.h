#ifndef STARLING_KERNEL_ASYNC_SLEEP_H_
#define STARLING_KERNEL_ASYNC_SLEEP_H_

#include <coroutine>
#include <cstdint>
#include <type_traits>

#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/async/timer_queue.h"
#include "kernel/hal/clock.h"

// co_await sleep_for(5 * kMillisecond); co_await sleep_until(deadline_ns);
// Times are nanoseconds on hal::now_ns()'s clock. A deadline already past
// completes without suspending. Destroying the sleeping frame (cancellation)
// takes the timer out of the queue.
namespace starling::async {

inline constexpr std::uint64_t kMicrosecond = 1'000;
inline constexpr std::uint64_t kMillisecond = 1'000'000;
inline constexpr std::uint64_t kSecond = 1'000'000'000;

// now + duration, saturating at hal::kNoDeadline.
inline std::uint64_t deadline_after(std::uint64_t duration_ns) noexcept {
  const std::uint64_t now = hal::now_ns();
  return duration_ns > hal::kNoDeadline - now ? hal::kNoDeadline : now + duration_ns;
}

class [[nodiscard]] SleepAwaiter {
 public:
  explicit SleepAwaiter(std::uint64_t deadline_ns) noexcept : deadline_(deadline_ns) {}
  SleepAwaiter(SleepAwaiter&&) noexcept = default;
  ~SleepAwaiter() {
    if (node_.linked()) Executor::current().timers().remove(node_);
  }

  bool await_ready() const noexcept { return deadline_ <= hal::now_ns(); }
  template <TaskPromiseType P>
  void await_suspend(std::coroutine_handle<P> task) noexcept {
    waiter_ = &task.promise();
    Executor::current().timers().insert(node_, deadline_, &expired);
  }
  void await_resume() const noexcept {}

 private:
  // The node is the first member, so the awaiter is found from it.
  static void expired(TimerNode& node) noexcept {
    auto& self = reinterpret_cast<SleepAwaiter&>(node);
    Executor::current().schedule(*self.waiter_);
  }

  TimerNode node_;
  std::uint64_t deadline_;
  PromiseBase* waiter_ = nullptr;
};

static_assert(std::is_standard_layout_v<SleepAwaiter>);  // expired() casts node_ to it

inline SleepAwaiter sleep_until(std::uint64_t deadline_ns) noexcept {
  return SleepAwaiter(deadline_ns);
}
inline SleepAwaiter sleep_for(std::uint64_t duration_ns) noexcept {
  return SleepAwaiter(deadline_after(duration_ns));
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_SLEEP_H_
