#ifndef STARLING_KERNEL_ASYNC_AS_TASK_H_
#define STARLING_KERNEL_ASYNC_AS_TASK_H_

#include <type_traits>
#include <utility>

#include "kernel/async/task.h"
#include "kernel/lib/result.h"

// Wraps an awaitable (event.wait(), sleep_for(...), a socket operation) in a
// Task, so it can be spawned, raced against a timeout or cancelled like any
// task. The awaitable is moved into the task's frame (so it must be movable
// while not yet awaited; Starling's awaiters are). Costs one frame.
namespace starling::async {

namespace detail {

template <typename R>
struct AsTaskResult {
  using type = R;  // a plain value becomes Result<value>
};
template <>
struct AsTaskResult<void> {
  using type = void;
};
template <typename T>
struct AsTaskResult<Result<T>> {
  using type = T;  // already a Result: keep its value type
};

template <typename A>
using AwaitResult = decltype(std::declval<A&>().await_resume());

}  // namespace detail

template <typename A, typename T = typename detail::AsTaskResult<detail::AwaitResult<A>>::type>
Task<T> as_task(A awaitable) noexcept {
  if constexpr (std::is_void_v<detail::AwaitResult<A>>) {
    co_await awaitable;
    co_return {};
  } else {
    co_return co_await awaitable;
  }
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_AS_TASK_H_
