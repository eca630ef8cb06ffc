#ifndef STARLING_KERNEL_ASYNC_CANCELLABLE_WAIT_H_
#define STARLING_KERNEL_ASYNC_CANCELLABLE_WAIT_H_

#include <coroutine>
#include <optional>
#include <type_traits>
#include <utility>

#include "kernel/async/as_task.h"
#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/lib/result.h"

// A wait that a deadline can bound without a frame of its own.
//
// with_timeout() and Deadline::bound() cancel what they bound by destroying
// it. A task has a frame to destroy; an awaiter that parks the task on a
// list (an Event, an InterruptSource, a Semaphore, a socket's receivers)
// has none of its own: it lives in the awaiting task's frame. Wrapping such
// waits in tasks cost a frame each: per UDP echo under -icount, ~150
// instructions for the NIC's wait and ~360 for receive_from()
// (docs/benchmarks.md). An awaiter that declares itself a CancellableWait
// is bounded in place instead. It promises:
//
//   - await_suspend() returns void and parks the task; the task is woken
//     only by Executor::schedule() (never resumed in place), so "woken" is
//     visible as the promise being in the ready queue;
//   - destroying it while parked unlinks it, and destroying it after it was
//     woken but before the task ran gives back whatever it was handed (a
//     permit, a datagram): cancellation loses nothing.
//
// The deadline firing then either finds the task already woken (the wait
// won: the deadline is ignored, the wait's result stands) or destroys the
// wait and wakes the task with kTimedOut.
namespace starling::async {

template <typename A>
concept CancellableWait = A::kCancellableWait && std::is_nothrow_move_constructible_v<A>;

namespace detail {

// What a bounded operation yields: a Result<T> for an awaiter whose
// await_resume() gives T or Result<T> (void: Result<void>).
template <typename A>
using BoundValue = typename AsTaskResult<AwaitResult<A>>::type;

// The child of a deadline when it is a CancellableWait: the same interface
// as CancellableChild (deadline.h), without a frame.
template <CancellableWait A>
class BoundWait {
 public:
  using Value = BoundValue<A>;

  explicit BoundWait(A wait) noexcept : wait_(std::in_place, std::move(wait)) {}
  BoundWait(BoundWait&&) noexcept = default;

  // No frame to allocate: the wait is always there.
  bool valid() const noexcept { return true; }
  // The wait completes without suspending (its await_ready()).
  bool ready() noexcept { return wait_->await_ready(); }
  template <TaskPromiseType P>
  std::coroutine_handle<> start(std::coroutine_handle<P> parent) noexcept {
    parent_ = &parent.promise();
    wait_->await_suspend(parent);
    return std::noop_coroutine();
  }
  // The deadline came (the parent is suspended: only the executor expires
  // timers). Already woken: the wait won. Otherwise cancel it and wake the
  // parent.
  void cancel() noexcept {
    if (parent_->queued()) return;
    timed_out_ = true;
    wait_.reset();
    Executor::current().schedule(*parent_);
  }
  void time_out_now() noexcept { timed_out_ = true; }
  Result<Value> result() noexcept {
    if (timed_out_) return Unexpected(Error::kTimedOut);
    if constexpr (std::is_void_v<AwaitResult<A>>) {
      wait_->await_resume();
      return {};
    } else {
      return wait_->await_resume();
    }
  }

 private:
  std::optional<A> wait_;
  PromiseBase* parent_ = nullptr;
  bool timed_out_ = false;
};

}  // namespace detail

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_CANCELLABLE_WAIT_H_
