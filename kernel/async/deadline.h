#ifndef STARLING_KERNEL_ASYNC_DEADLINE_H_
#define STARLING_KERNEL_ASYNC_DEADLINE_H_

#include <coroutine>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernel/async/cancellable_wait.h"
#include "kernel/async/executor.h"
#include "kernel/async/fast_path.h"
#include "kernel/async/promise.h"
#include "kernel/async/task.h"
#include "kernel/async/timer_queue.h"
#include "kernel/lib/result.h"

// A deadline that outlives the waits it bounds: a loop that waits again and
// again until the same moment keeps one timer in the queue instead of
// inserting and removing one per wait (with_timeout's cost).
//
//   Deadline deadline;
//   for (;;) {
//     deadline.set(next_timeout_ns);             // the queue is touched only if it moved
//     auto woke = co_await deadline.bound(nic.wait_for_work());
//     ...                                        // kTimedOut: the deadline came first
//   }
//
// bound(operation) runs the operation as a child, like with_timeout: if it
// finishes first its result is returned and the timer stays armed for the
// next wait; if the deadline comes first, the operation is cancelled right
// then (its frame and every frame it awaits destroyed, each awaiter
// unlinking itself) and the caller gets kTimedOut. A CancellableWait
// (cancellable_wait.h: an event's, a socket's, a NIC's wait) is bounded in
// place, without a frame; a FastPathAwaiter (fast_path.h: a TCP write)
// needs none when it completes at once. A deadline that has
// passed with nobody waiting stays passed: the next bound() returns
// kTimedOut at once, until set() moves it.
namespace starling::async {

namespace detail {

// An operation run as a child of the awaiting task and cancelled when its
// deadline fires: what Deadline::Bound and WithTimeout share.
template <typename T>
class CancellableChild {
 public:
  using Value = T;

  explicit CancellableChild(Task<T> operation) noexcept : operation_(std::move(operation)) {}
  CancellableChild(CancellableChild&&) noexcept = default;

  bool valid() const noexcept { return operation_.valid(); }  // false: kNoMemory
  // A task always starts (and runs until it first suspends) in start().
  bool ready() const noexcept { return false; }
  template <TaskPromiseType P>
  std::coroutine_handle<> start(std::coroutine_handle<P> parent) noexcept {
    parent_ = &parent.promise();
    return operation_.start(parent);
  }
  // The deadline came first (only the executor expires timers, so the
  // operation is suspended): destroy it and wake the parent.
  void cancel() noexcept {
    timed_out_ = true;
    operation_.reset();
    Executor::current().schedule(*parent_);
  }
  void time_out_now() noexcept { timed_out_ = true; }
  Result<T> result() noexcept {
    if (timed_out_) return Unexpected(Error::kTimedOut);
    return operation_.take_result();
  }

 private:
  Task<T> operation_;
  PromiseBase* parent_ = nullptr;
  bool timed_out_ = false;
};

}  // namespace detail

class Deadline {
 public:
  Deadline() noexcept = default;
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() {
    if (node_.linked()) Executor::current().timers().remove(node_);
  }

  // The moment (hal::now_ns() time) the next bound() waits until. The
  // timer queue is touched only when the deadline moves earlier than the
  // armed timer, or the last one has passed. Moved later (an idle limit
  // pushed back by every request), the armed timer stays where it is and,
  // when it comes, goes on to the new moment without firing: a connection
  // that keeps talking re-arms it once an idle period, not once a read
  // (a removal and an insertion, ~70 instructions a wait).
  void set(std::uint64_t deadline_ns) noexcept {
    target_ = deadline_ns;
    if (node_.linked()) {
      if (node_.deadline() <= deadline_ns) return;
      Executor::current().timers().remove(node_);
    }
    ++arms_;
    Executor::current().timers().insert(node_, deadline_ns, &expired);
  }
  // The moment set() last asked for.
  std::uint64_t deadline() const noexcept { return target_; }
  // Whether the deadline has passed (or was never set).
  bool passed() const noexcept { return !node_.linked(); }
  // Times set() put the timer in the queue: a test's way to see it kept.
  std::uint64_t arms() const noexcept { return arms_; }
  // Times the timer came at a moment set() had since moved later, and was
  // put back in the queue for the new one.
  std::uint64_t moves() const noexcept { return moves_; }

  // Child: detail::CancellableChild<T> (a task), detail::BoundWait<A>
  // (cancellable_wait.h) or detail::FastPathChild<A> (fast_path.h).
  template <typename Child>
  class [[nodiscard]] Bound {
   public:
    Bound(Deadline& deadline, Child child) noexcept
        : deadline_(&deadline), child_(std::move(child)) {}
    Bound(Bound&&) noexcept = default;
    ~Bound() {
      if (deadline_->waiter_ == this) deadline_->waiter_ = nullptr;
    }

    bool await_ready() noexcept {
      if (!child_.valid()) return true;  // kNoMemory
      if (!deadline_->passed()) return child_.ready();
      child_.time_out_now();
      return true;
    }
    template <TaskPromiseType P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
      deadline_->waiter_ = this;
      deadline_->fire_ = &fire;
      return child_.start(parent);
    }
    Result<typename Child::Value> await_resume() noexcept {
      if (deadline_->waiter_ == this) deadline_->waiter_ = nullptr;
      return child_.result();
    }

   private:
    static void fire(void* self) noexcept { static_cast<Bound*>(self)->child_.cancel(); }
    Deadline* deadline_;
    Child child_;
  };

  template <typename T>
  Bound<detail::CancellableChild<T>> bound(Task<T> operation) noexcept {
    return {*this, detail::CancellableChild<T>(std::move(operation))};
  }
  template <CancellableWait A>
  Bound<detail::BoundWait<A>> bound(A wait) noexcept {
    return {*this, detail::BoundWait<A>(std::move(wait))};
  }
  template <FastPathAwaiter A>
  Bound<detail::FastPathChild<A>> bound(A operation) noexcept {
    return {*this, detail::FastPathChild<A>(std::move(operation))};
  }

 private:
  static void expired(TimerNode& node) noexcept {
    static_assert(std::is_standard_layout_v<Deadline>);
    auto& self = reinterpret_cast<Deadline&>(node);
    if (self.target_ > node.deadline()) {
      // Moved later since it was armed: not passed, on to the new moment.
      ++self.moves_;
      Executor::current().timers().insert(self.node_, self.target_, &expired);
      return;
    }
    if (void* waiter = std::exchange(self.waiter_, nullptr); waiter != nullptr) self.fire_(waiter);
  }

  TimerNode node_;                 // first: expired() casts it back to the deadline
  std::uint64_t target_ = 0;       // what set() asked for: the armed timer's moment or later
  void* waiter_ = nullptr;         // the Bound awaiting now, if any
  void (*fire_)(void*) = nullptr;  // its cancel
  std::uint64_t arms_ = 0;
  std::uint64_t moves_ = 0;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_DEADLINE_H_
