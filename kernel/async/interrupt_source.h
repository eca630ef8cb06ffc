#ifndef STARLING_KERNEL_ASYNC_INTERRUPT_SOURCE_H_
#define STARLING_KERNEL_ASYNC_INTERRUPT_SOURCE_H_

#include <atomic>
#include <coroutine>

#include "kernel/async/promise.h"
#include "kernel/async/wait_list.h"
#include "kernel/lib/intrusive_list.h"

// A device interrupt as something a task can wait for.
//
//   Driver task:                       Trap handler (interrupt context):
//     for (;;) {                         ack + mask the device interrupt;
//       co_await rx_irq.wait();          rx_irq.signal();
//       drain the ring in a batch;
//       unmask the device interrupt;
//     }
//
// signal() only sets atomic flags, so it is safe from a trap handler (or, on
// the host, from another thread: use host::raise_interrupt there, which also
// wakes a sleeping executor). The executor moves the waiters of signalled
// sources to the ready queue, with interrupts masked before it decides to
// sleep, so a signal is never lost between "nothing to do" and wfi.
//
// A signal with nobody waiting stays pending: the next wait() completes at
// once. One signal wakes every task waiting at that moment.
namespace starling::async {

class Executor;

namespace detail {
// Set by any signal(): lets the executor skip scanning sources when none fired.
extern std::atomic<bool> g_interrupt_pending;
}  // namespace detail

class InterruptSource {
 public:
  InterruptSource() noexcept = default;
  ~InterruptSource();
  InterruptSource(const InterruptSource&) = delete;
  InterruptSource& operator=(const InterruptSource&) = delete;

  // Interrupt-safe: two atomic stores, nothing else.
  void signal() noexcept {
    pending_.store(true, std::memory_order_release);
    detail::g_interrupt_pending.store(true, std::memory_order_release);
  }
  bool pending() const noexcept { return pending_.load(std::memory_order_acquire); }
  // Takes a pending signal, as a wait does first; true if there was one. For
  // a driver's last look before it sleeps (without an Awaiter, whose
  // construction and destruction cost ~25 instructions a look).
  bool consume() noexcept {
    return pending_.load(std::memory_order_relaxed) &&
           pending_.exchange(false, std::memory_order_acquire);
  }

  class [[nodiscard]] Awaiter {
   public:
    // Bounded by a deadline in place (cancellable_wait.h).
    static constexpr bool kCancellableWait = true;

    explicit Awaiter(InterruptSource& source) noexcept : source_(&source) {}
    Awaiter(Awaiter&&) noexcept = default;
    // Inline for the usual case, a wait that ended by a wake-up (which
    // unlinks it): an out-of-line call per wait cost ~13 instructions.
    ~Awaiter() {
      if (node_.linked()) leave();
    }
    // Consumes a pending signal without suspending.
    bool await_ready() noexcept { return source_->consume(); }
    template <TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> task) noexcept {
      suspend(task.promise());
    }
    void await_resume() const noexcept {}

   private:
    void suspend(PromiseBase& task) noexcept;
    // Off the source's wait list (a wait cancelled or abandoned).
    void leave() noexcept;
    InterruptSource* source_;
    WaitNode node_;
  };
  Awaiter wait() noexcept { return Awaiter(*this); }

 private:
  friend class Executor;
  // Executor side: if signalled, wake all waiters. True if it did.
  bool wake_if_signalled(Executor& executor) noexcept;

  std::atomic<bool> pending_{false};
  WaitList waiters_;
  // The executor's list of armed sources (those with waiters).
  ListLink<InterruptSource> armed_link_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_INTERRUPT_SOURCE_H_
