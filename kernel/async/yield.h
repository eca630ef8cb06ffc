#ifndef STARLING_KERNEL_ASYNC_YIELD_H_
#define STARLING_KERNEL_ASYNC_YIELD_H_

#include <coroutine>

#include "kernel/async/executor.h"
#include "kernel/async/promise.h"

// co_await yield(): a cooperative preemption point for long loops. It
// suspends only if someone else wants the hart (a ready task, a pending
// interrupt, a due timer), and then goes to the back of the ready queue.
// When nothing else is waiting it costs a few loads and no suspension.
namespace starling::async {

class [[nodiscard]] YieldAwaiter {
 public:
  bool await_ready() const noexcept { return !Executor::current().should_yield(); }
  template <TaskPromiseType P>
  void await_suspend(std::coroutine_handle<P> task) const noexcept {
    Executor::current().schedule(task.promise());
  }
  void await_resume() const noexcept {}
};

inline YieldAwaiter yield() noexcept {
  return {};
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_YIELD_H_
