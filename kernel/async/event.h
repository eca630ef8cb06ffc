#ifndef STARLING_KERNEL_ASYNC_EVENT_H_
#define STARLING_KERNEL_ASYNC_EVENT_H_

#include <coroutine>

#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/async/wait_list.h"

// A one-shot event: tasks co_await event.wait() until someone calls set();
// from then on wait() completes at once (until reset()). For tasks on the
// executor only: interrupt handlers use an InterruptSource.
namespace starling::async {

class Event {
 public:
  Event() noexcept = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  bool is_set() const noexcept { return set_; }
  // Wakes every waiting task, in the order they started waiting.
  void set() noexcept {
    set_ = true;
    Executor& executor = Executor::current();
    while (WaitNode* n = waiters_.pop_front()) executor.schedule(*n->waiter());
  }
  void reset() noexcept { set_ = false; }

  class [[nodiscard]] Awaiter {
   public:
    // Bounded by a deadline in place (cancellable_wait.h).
    static constexpr bool kCancellableWait = true;

    explicit Awaiter(Event& event) noexcept : event_(&event) {}
    Awaiter(Awaiter&&) noexcept = default;
    ~Awaiter() { event_->waiters_.remove(node_); }
    bool await_ready() const noexcept { return event_->set_; }
    template <TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      node_.set_waiter(task.promise());
      event_->waiters_.push_back(node_);
    }
    void await_resume() const noexcept {}

   private:
    Event* event_;
    WaitNode node_;
  };
  Awaiter wait() noexcept { return Awaiter(*this); }

 private:
  WaitList waiters_;
  bool set_ = false;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_EVENT_H_
