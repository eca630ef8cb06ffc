#ifndef STARLING_KERNEL_ASYNC_TIMEOUT_H_
#define STARLING_KERNEL_ASYNC_TIMEOUT_H_

#include <coroutine>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernel/async/as_task.h"
#include "kernel/async/cancellable_wait.h"
#include "kernel/async/deadline.h"
#include "kernel/async/executor.h"
#include "kernel/async/fast_path.h"
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
//
// A CancellableWait (cancellable_wait.h: event.wait(), a socket's
// receive_from(), a NIC's wait_for_work()) is bounded in place, with no
// frame; its result stands if it woke the task before the deadline fired.
// A FastPathAwaiter (fast_path.h) that completes at once arms no timer.
// Any other awaitable is wrapped in a task first (one frame).
namespace starling::async {

namespace detail {

// Child: CancellableChild<T> (a task, deadline.h), BoundWait<A>
// (cancellable_wait.h) or FastPathChild<A> (fast_path.h).
template <typename Child>
class [[nodiscard]] TimedChild {
 public:
  TimedChild(Child child, std::uint64_t deadline_ns) noexcept
      : child_(std::move(child)), deadline_(deadline_ns) {}
  TimedChild(TimedChild&&) noexcept = default;
  ~TimedChild() {
    if (node_.linked()) Executor::current().timers().remove(node_);
    // child_'s destructor then destroys the operation if still running.
  }

  bool await_ready() noexcept { return !child_.valid() || child_.ready(); }  // !valid: kNoMemory
  template <TaskPromiseType P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    Executor::current().timers().insert(node_, deadline_, &expired);
    return child_.start(parent);
  }
  Result<typename Child::Value> await_resume() noexcept {
    if (node_.linked()) Executor::current().timers().remove(node_);
    return child_.result();
  }

 private:
  static void expired(TimerNode& node) noexcept {
    static_assert(std::is_standard_layout_v<TimedChild>);
    reinterpret_cast<TimedChild&>(node).child_.cancel();
  }

  TimerNode node_;  // first: expired() casts it back to the awaiter
  Child child_;
  std::uint64_t deadline_;
};

}  // namespace detail

template <typename T>
using WithTimeout = detail::TimedChild<detail::CancellableChild<T>>;
template <CancellableWait A>
using WaitWithTimeout = detail::TimedChild<detail::BoundWait<A>>;
template <FastPathAwaiter A>
using FastPathWithTimeout = detail::TimedChild<detail::FastPathChild<A>>;

template <typename T>
WithTimeout<T> with_deadline(Task<T> operation, std::uint64_t deadline_ns) noexcept {
  return WithTimeout<T>(detail::CancellableChild<T>(std::move(operation)), deadline_ns);
}
template <CancellableWait A>
WaitWithTimeout<A> with_deadline(A wait, std::uint64_t deadline_ns) noexcept {
  return WaitWithTimeout<A>(detail::BoundWait<A>(std::move(wait)), deadline_ns);
}

template <FastPathAwaiter A>
FastPathWithTimeout<A> with_deadline(A operation, std::uint64_t deadline_ns) noexcept {
  return FastPathWithTimeout<A>(detail::FastPathChild<A>(std::move(operation)), deadline_ns);
}

template <typename T>
WithTimeout<T> with_timeout(Task<T> operation, std::uint64_t timeout_ns) noexcept {
  return with_deadline(std::move(operation), deadline_after(timeout_ns));
}
template <CancellableWait A>
WaitWithTimeout<A> with_timeout(A wait, std::uint64_t timeout_ns) noexcept {
  return with_deadline(std::move(wait), deadline_after(timeout_ns));
}

template <FastPathAwaiter A>
FastPathWithTimeout<A> with_timeout(A operation, std::uint64_t timeout_ns) noexcept {
  return with_deadline(std::move(operation), deadline_after(timeout_ns));
}

// Any other awaitable: wrapped in a task first (one frame).
template <typename A>
  requires(!CancellableWait<A> && !FastPathAwaiter<A>)
auto with_timeout(A awaitable, std::uint64_t timeout_ns) noexcept {
  return with_timeout(as_task(std::move(awaitable)), timeout_ns);
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TIMEOUT_H_
