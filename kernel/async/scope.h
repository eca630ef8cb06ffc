#ifndef STARLING_KERNEL_ASYNC_SCOPE_H_
#define STARLING_KERNEL_ASYNC_SCOPE_H_

#include <coroutine>
#include <cstddef>

#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/async/task.h"
#include "kernel/async/task_list.h"
#include "kernel/lib/result.h"

// Structured concurrency: a task starts children in a Scope and joins them.
//
//   Scope scope;
//   scope.spawn(serve(a));
//   scope.spawn(serve(b));
//   Result<void> r = co_await scope.join();   // all children finished; first error, if any
//
// The scope owns its children's frames. Destroying it (or cancel()) destroys
// every child still running, wherever it is suspended; since a scope usually
// lives in its parent's frame, cancelling the parent cancels the children.
// A child must not cancel or destroy its own scope.
namespace starling::async {

class Scope final : private TaskOwner {
 public:
  Scope() noexcept = default;
  ~Scope() { cancel(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Starts `task` as a child (it runs from the next executor pass). An empty
  // task is not started: kNoMemory, also recorded as the scope's error.
  template <typename T>
  Result<void> spawn(Task<T> task) noexcept {
    return adopt(task.release());
  }

  // Destroys every child now. A pending join() completes with kCancelled.
  void cancel() noexcept;

  std::size_t size() const noexcept { return children_.size(); }
  // Children that ended with an error (or could not start).
  std::size_t failures() const noexcept { return failures_; }

  class [[nodiscard]] JoinAwaiter {
   public:
    explicit JoinAwaiter(Scope& scope) noexcept : scope_(&scope) {}
    JoinAwaiter(JoinAwaiter&&) noexcept = default;
    ~JoinAwaiter() {
      if (scope_->joiner_ == waiter_ && waiter_ != nullptr) scope_->joiner_ = nullptr;
    }
    bool await_ready() const noexcept { return scope_->children_.empty(); }
    template <TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      detail::check(scope_->joiner_ == nullptr);  // one joiner at a time
      waiter_ = &task.promise();
      scope_->joiner_ = waiter_;
    }
    // Success if every child succeeded; otherwise the first child's error.
    Result<void> await_resume() const noexcept { return scope_->outcome(); }

   private:
    Scope* scope_;
    PromiseBase* waiter_ = nullptr;
  };
  // Waits until no child is left.
  JoinAwaiter join() noexcept { return JoinAwaiter(*this); }

 private:
  Result<void> adopt(PromiseBase* task) noexcept;
  void on_task_done(PromiseBase& task) noexcept override;
  void record(Error error) noexcept;
  void wake_joiner() noexcept;
  Result<void> outcome() const noexcept {
    if (failures_ == 0) return {};
    return Unexpected(first_error_);
  }

  TaskList children_;
  PromiseBase* joiner_ = nullptr;
  std::size_t failures_ = 0;
  Error first_error_ = Error::kCancelled;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_SCOPE_H_
