#ifndef STARLING_KERNEL_ASYNC_TIMEOUT_H_
#define STARLING_KERNEL_ASYNC_TIMEOUT_H_

#include <coroutine>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernel/async/as_task.h"
#include "kernel/async/deadline.h"
#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timer_queue.h"
#include "kernel/lib/result.h"

// Result<T> r = co_await with_timeout(read_frame(), 5 * kMillisecond);
//
// Runs the operation as a child. If it finishes first, its result is
// returned and the timer is removed. If the deadline comes first, the
// operation is cancelled right then: its frame (and every frame it awaits)
// is destroyed, each awaiter unlinking itself from the queue it waited in
// (timer queue, event, semaphore, interrupt source, ready queue); the caller
// gets Error::kTimedOut. Nothing leaks and nothing it waited for is touched
// afterwards.
namespace starling::async {

template <typename T>
class [[nodiscard]] WithTimeout {
 public:
  WithTimeout(Task<T> operation, std::uint64_t deadline_ns) noexcept
      : child_(std::move(operation)), deadline_(deadline_ns) {}
  WithTimeout(WithTimeout&&) noexcept = default;
  ~WithTimeout() {
    if (node_.linked()) Executor::current().timers().remove(node_);
    // child_'s destructor then destroys the operation if still running.
  }

  bool await_ready() const noexcept { return !child_.valid(); }  // kNoMemory
  template <TaskPromiseType P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    Executor::current().timers().insert(node_, deadline_, &expired);
    return child_.start(parent);
  }
  Result<T> await_resume() noexcept {
    if (node_.linked()) Executor::current().timers().remove(node_);
    return child_.result();
  }

 private:
  static void expired(TimerNode& node) noexcept {
    static_assert(std::is_standard_layout_v<WithTimeout>);
    reinterpret_cast<WithTimeout&>(node).child_.cancel();
  }

  TimerNode node_;  // first: expired() casts it back to the awaiter
  detail::CancellableChild<T> child_;
  std::uint64_t deadline_;
};

template <typename T>
WithTimeout<T> with_deadline(Task<T> operation, std::uint64_t deadline_ns) noexcept {
  return WithTimeout<T>(std::move(operation), deadline_ns);
}

template <typename T>
WithTimeout<T> with_timeout(Task<T> operation, std::uint64_t timeout_ns) noexcept {
  return WithTimeout<T>(std::move(operation), deadline_after(timeout_ns));
}

// Any other awaitable: wrapped in a task first (one frame).
template <typename A>
auto with_timeout(A awaitable, std::uint64_t timeout_ns) noexcept {
  return with_timeout(as_task(std::move(awaitable)), timeout_ns);
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TIMEOUT_H_
