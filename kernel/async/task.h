#ifndef STARLING_KERNEL_ASYNC_TASK_H_
#define STARLING_KERNEL_ASYNC_TASK_H_

#include <coroutine>
#include <cstddef>
#include <utility>

#include "kernel/async/check.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/promise.h"
#include "kernel/lib/result.h"

// Task<T>: a lazy coroutine that ends with a Result<T> (a value or an Error).
//
//   Task<int> read_answer() { co_return 42; }
//   Task<void> app() {
//     Result<int> r = co_await read_answer();   // starts it, waits, takes the result
//     if (!r) co_return Unexpected(r.error());
//     co_return {};                              // Task<void> succeeds with {}
//   }
//
// Nothing runs until the task is awaited (or spawned: Executor::spawn,
// Scope::spawn). Awaiting transfers control straight into the child and, when
// it finishes, straight back (symmetric transfer): a chain of co_awaits of any
// depth uses constant stack. The frame comes from FrameAllocator::current();
// if it cannot, the Task is empty and awaiting or spawning it yields
// Error::kNoMemory. The Task object owns the frame: destroying it destroys
// the coroutine wherever it is suspended (that is cancellation).
namespace starling::async {

template <typename T>
class Task;

namespace detail {
// Destroys a frame; out of line (task.cc) on purpose. Clang's coroutine
// elision (HALO) places a frame in its caller's frame or stack when it can
// see where the frame is destroyed; hiding the destroy turns that off. Frames
// must come from the FrameAllocator (bounded and counted; kernel stacks are
// small), and clang 19 miscompiled elided frames here: at -O2, block_on()
// saw a finished task as never finishing.
void destroy_frame(std::coroutine_handle<> frame) noexcept;
}  // namespace detail

template <typename T>
class TaskPromise final : public PromiseBase {
 public:
  TaskPromise() noexcept {
    set_frame(std::coroutine_handle<TaskPromise>::from_promise(*this).address());
  }

  static void* operator new(std::size_t bytes) noexcept {
    return FrameAllocator::current().allocate(bytes);
  }
  static void operator delete(void* frame, std::size_t bytes) noexcept {
    FrameAllocator::current().deallocate(frame, bytes);
  }
  static Task<T> get_return_object_on_allocation_failure() noexcept { return Task<T>(); }

  Task<T> get_return_object() noexcept;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void return_value(Result<T> result) noexcept {
    if (!result) record_error(result.error());
    result_ = std::move(result);
  }
  // Unreachable: the kernel has no exceptions, and the host code throws none.
  void unhandled_exception() noexcept { __builtin_trap(); }

  Result<T>& result() noexcept { return result_; }

 private:
  Result<T> result_{Unexpected(Error::kCancelled)};
};

template <typename T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = TaskPromise<T>;
  using value_type = T;

  // An empty task: what a failed frame allocation produces.
  Task() noexcept = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ~Task() { reset(); }

  // False for an empty task (its frame could not be allocated).
  bool valid() const noexcept { return static_cast<bool>(handle_); }
  bool done() const noexcept { return handle_ && handle_.done(); }

  // Destroys the coroutine wherever it is (cancellation); the Task is empty.
  void reset() noexcept {
    if (handle_) detail::destroy_frame(std::exchange(handle_, {}));
  }

  // For the runtime (Executor, Scope): gives up ownership of the frame.
  promise_type* release() noexcept {
    return handle_ ? &std::exchange(handle_, {}).promise() : nullptr;
  }
  promise_type& promise() const noexcept { return handle_.promise(); }

  // Starts the task as `parent`'s child: when it finishes, `parent` resumes.
  // Returns the handle to transfer to.
  std::coroutine_handle<> start(std::coroutine_handle<> parent) noexcept {
    PromiseBase& p = handle_.promise();
    detail::check(!p.continuation_ && !handle_.done());  // awaited once only
    p.continuation_ = parent;
    return handle_;
  }

  // The result, once the task is done (or kNoMemory for an empty task).
  Result<T> take_result() noexcept {
    if (!handle_) return Unexpected(Error::kNoMemory);
    return std::move(handle_.promise().result());
  }

  class Awaiter {
   public:
    explicit Awaiter(Task& task) noexcept : task_(task) {}
    bool await_ready() const noexcept { return !task_.valid(); }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
      return task_.start(parent);
    }
    Result<T> await_resume() noexcept { return task_.take_result(); }

   private:
    Task& task_;
  };
  Awaiter operator co_await() & noexcept { return Awaiter(*this); }
  Awaiter operator co_await() && noexcept { return Awaiter(*this); }

 private:
  friend class TaskPromise<T>;
  explicit Task(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}

  std::coroutine_handle<promise_type> handle_{};
};

template <typename T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise>::from_promise(*this));
}

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TASK_H_
