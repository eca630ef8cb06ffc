#ifndef STARLING_KERNEL_ASYNC_FAST_PATH_H_
#define STARLING_KERNEL_ASYNC_FAST_PATH_H_

#include <concepts>
#include <coroutine>
#include <optional>
#include <type_traits>
#include <utility>

#include "kernel/async/as_task.h"
#include "kernel/async/promise.h"
#include "kernel/async/task.h"
#include "kernel/lib/result.h"

// An operation that usually completes at once and only sometimes waits (a
// TCP write that fits the send buffer, or must wait for room): its awaiter
// does the work in await_ready() and, when it cannot finish there, hands
// the rest over as a task (rest()). The frame is paid only when the
// operation really waits, and the waiting runs in task context, as before.
//
// with_timeout and Deadline::bound take such an awaiter directly: the
// fast path needs no timer at all; the slow path is bounded as any task
// (cancelling it destroys its frame).
namespace starling::async {

template <typename A>
concept FastPathAwaiter =
    A::kFastPathAwaiter && std::is_nothrow_move_constructible_v<A> && requires(A& a) {
      { a.await_ready() } -> std::same_as<bool>;
      a.rest();
    };

namespace detail {

template <typename T>
class CancellableChild;  // deadline.h, which includes this header

// The child of a deadline when it is a FastPathAwaiter: the same interface
// as CancellableChild, which it becomes when the operation must wait.
template <FastPathAwaiter A>
class FastPathChild {
 public:
  using Value = typename AsTaskResult<AwaitResult<A>>::type;

  explicit FastPathChild(A operation) noexcept : operation_(std::move(operation)) {}
  FastPathChild(FastPathChild&&) noexcept = default;

  bool valid() const noexcept { return true; }
  // Done at once, or the rest could not get a frame (kNoMemory): ready.
  bool ready() noexcept {
    if (operation_.await_ready()) return true;
    slow_.emplace(operation_.rest());
    return !slow_->valid();
  }
  template <TaskPromiseType P>
  std::coroutine_handle<> start(std::coroutine_handle<P> parent) noexcept {
    return slow_->start(parent);
  }
  void cancel() noexcept { slow_->cancel(); }
  void time_out_now() noexcept { timed_out_ = true; }
  Result<Value> result() noexcept {
    if (timed_out_) return Unexpected(Error::kTimedOut);
    if (!slow_) return operation_.await_resume();
    return slow_->result();
  }

 private:
  A operation_;
  std::optional<CancellableChild<Value>> slow_;
  bool timed_out_ = false;
};

}  // namespace detail

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_FAST_PATH_H_
