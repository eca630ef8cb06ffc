#ifndef STARLING_KERNEL_ASYNC_CHECK_H_
#define STARLING_KERNEL_ASYNC_CHECK_H_

// Invariants of the runtime that only a bug can break (a coroutine woken
// twice, a task awaited twice). There is no exception to throw and no console
// guaranteed this early, so a broken invariant stops the hart where a debugger
// (or ASan's stack trace on the host) shows it.
namespace starling::async::detail {

inline void check(bool invariant) noexcept {
  if (!invariant) __builtin_trap();
}

}  // namespace starling::async::detail

#endif  // STARLING_KERNEL_ASYNC_CHECK_H_
