#ifndef STARLING_KERNEL_ASYNC_SEMAPHORE_H_
#define STARLING_KERNEL_ASYNC_SEMAPHORE_H_

#include <coroutine>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "kernel/async/executor.h"
#include "kernel/async/promise.h"
#include "kernel/async/wait_list.h"

// A counting semaphore (a counting event): release() adds permits, co_await
// acquire() takes one, waiting in FIFO order while there are none. A release
// hands its permit straight to the first waiter, so a task that arrives later
// cannot overtake it. A waiter cancelled after it was handed a permit, before
// it ran, passes the permit on: permits are never lost.
namespace starling::async {

class Semaphore {
 public:
  explicit Semaphore(std::size_t permits = 0) noexcept : permits_(permits) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  std::size_t available() const noexcept { return permits_; }

  bool try_acquire() noexcept {
    if (permits_ == 0) return false;
    --permits_;
    return true;
  }

  void release(std::size_t n = 1) noexcept {
    for (; n > 0; --n) {
      WaitNode* node = waiters_.pop_front();
      if (node == nullptr) break;
      Awaiter& waiter = *reinterpret_cast<Awaiter*>(node);  // node is its first member
      waiter.granted_ = true;
      Executor::current().schedule(*node->waiter());
    }
    permits_ += n;
  }

  class [[nodiscard]] Awaiter {
   public:
    // Bounded by a deadline in place (cancellable_wait.h).
    static constexpr bool kCancellableWait = true;

    explicit Awaiter(Semaphore& semaphore) noexcept : semaphore_(&semaphore) {}
    Awaiter(Awaiter&& other) noexcept
        : node_(std::move(other.node_)), semaphore_(other.semaphore_) {}
    ~Awaiter() {
      if (node_.linked()) {
        semaphore_->waiters_.remove(node_);
      } else if (granted_) {
        semaphore_->release();  // handed a permit but never ran: pass it on
      }
    }
    bool await_ready() noexcept { return semaphore_->try_acquire(); }
    template <TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      node_.set_waiter(task.promise());
      semaphore_->waiters_.push_back(node_);
    }
    void await_resume() noexcept { granted_ = false; }  // the permit is the task's now

   private:
    friend class Semaphore;
    WaitNode node_;
    Semaphore* semaphore_;
    bool granted_ = false;
  };
  Awaiter acquire() noexcept { return Awaiter(*this); }

 private:
  WaitList waiters_;
  std::size_t permits_;
};

static_assert(std::is_standard_layout_v<Semaphore::Awaiter>);  // release() casts node_ to it

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_SEMAPHORE_H_
