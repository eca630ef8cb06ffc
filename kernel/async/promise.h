#ifndef STARLING_KERNEL_ASYNC_PROMISE_H_
#define STARLING_KERNEL_ASYNC_PROMISE_H_

#include <concepts>
#include <coroutine>

#include "kernel/lib/intrusive_list.h"
#include "kernel/lib/result.h"

// The part of every task's promise that the runtime sees: it is the
// executor's unit of work (Seastar's design). Waking a task links its promise
// into the ready queue through `ready_link_`; no allocation, no indirection beyond
// the frame's own resume pointer.
namespace starling::async {

class PromiseBase;

// Who owns a started task's frame when no parent awaits it: a Scope, or the
// executor for detached tasks. Told when the task has finished (its result is
// in the promise); it must unlink and destroy the frame.
class TaskOwner {
 public:
  virtual void on_task_done(PromiseBase& task) noexcept = 0;

 protected:
  ~TaskOwner() = default;
};

namespace detail {
// Takes a promise out of the executor's ready queue (executor.cc): a frame
// destroyed while it was woken but not yet resumed.
void unqueue(PromiseBase& promise) noexcept;
}  // namespace detail

class PromiseBase {
 public:
  PromiseBase() noexcept = default;
  PromiseBase(const PromiseBase&) = delete;
  PromiseBase& operator=(const PromiseBase&) = delete;
  ~PromiseBase() {
    if (ready_link_.linked()) detail::unqueue(*this);
  }

  void resume() noexcept { std::coroutine_handle<>::from_address(frame_).resume(); }
  std::coroutine_handle<> handle() const noexcept {
    return std::coroutine_handle<>::from_address(frame_);
  }
  bool queued() const noexcept { return ready_link_.linked(); }
  // A spawned task (no parent awaits it) is owned by `owner` until it ends.
  void set_owner(TaskOwner* owner) noexcept { owner_ = owner; }
  // Set when the task returned an error (also for Task<void>), for owners
  // that report failures without knowing T.
  bool failed() const noexcept { return failed_; }
  Error error() const noexcept { return error_; }

 protected:
  void record_error(Error e) noexcept {
    failed_ = true;
    error_ = e;
  }

 private:
  friend class ReadyQueue;
  friend class TaskList;
  template <typename T>
  friend class Task;
  friend struct FinalAwaiter;

  ListLink<PromiseBase> ready_link_;        // in the executor's ReadyQueue
  void* frame_ = nullptr;                   // this coroutine's frame (its handle's address)
  std::coroutine_handle<> continuation_{};  // the awaiting parent, if any
  TaskOwner* owner_ = nullptr;              // a Scope or the executor, if spawned
  ListLink<PromiseBase> sibling_link_;      // in the owner's TaskList
  Error error_ = Error::kCancelled;
  bool failed_ = false;

 protected:
  void set_frame(void* frame) noexcept { frame_ = frame; }
};

// Awaitables that park a task (timers, events, interrupt sources) work only
// in Starling tasks: they need the promise to wake it later.
template <typename P>
concept TaskPromiseType = std::derived_from<P, PromiseBase>;

// A finishing task hands control on: to its parent by symmetric transfer (the
// parent resumes in place of the child, so a chain of any depth completes in
// constant stack), or to its owner, which destroys the frame.
struct FinalAwaiter {
  bool await_ready() const noexcept { return false; }
  template <typename P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> handle) noexcept {
    PromiseBase& promise = handle.promise();
    if (promise.continuation_) return promise.continuation_;
    if (promise.owner_ != nullptr) promise.owner_->on_task_done(promise);  // destroys the frame
    return std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_PROMISE_H_
