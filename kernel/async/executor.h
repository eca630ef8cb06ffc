#ifndef STARLING_KERNEL_ASYNC_EXECUTOR_H_
#define STARLING_KERNEL_ASYNC_EXECUTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "kernel/async/interrupt_source.h"
#include "kernel/async/promise.h"
#include "kernel/async/ready_queue.h"
#include "kernel/async/task.h"
#include "kernel/async/task_list.h"
#include "kernel/async/timer_queue.h"
#include "kernel/lib/result.h"

// The executor: runs woken tasks in FIFO order, expires timers, collects
// interrupt wake-ups, and sleeps the hart (hal::idle) when nothing is
// runnable, counting the cycles spent asleep.
//
// One executor per hart, created first and destroyed last (awaitables find it
// through Executor::current()). A pass ("round") runs the tasks that were
// ready when it began; tasks woken during the pass run in the next one, after
// interrupts and timers have been looked at again, so a task that keeps
// yielding cannot starve anyone.
namespace starling::async {

// Called for every detached task that finished with an error.
using ErrorReporter = void (*)(Error error, void* context);

class Executor final : private TaskOwner {
 public:
  Executor() noexcept;
  // Cancels (destroys) the detached tasks still alive.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  static Executor& current() noexcept {
    detail::check(current_ != nullptr);
    return *current_;
  }
  // For code that runs before (or without) one: an interrupt, say.
  static const Executor* current_or_null() noexcept { return current_; }

  // Starts a detached task: it runs on its own, the executor owns its frame,
  // and an error it ends with goes to the reporter. An empty task (its frame
  // could not be allocated) is reported too and returned as kNoMemory.
  template <typename T>
  Result<void> spawn(Task<T> task) noexcept {
    return spawn_promise(task.release());
  }

  // Runs `task` (and whatever else is runnable) until it finishes; returns
  // its result. If it can never finish (nothing runnable, no timer pending
  // and no task waiting for an interrupt), it is cancelled: kCancelled.
  template <typename T>
  Result<T> block_on(Task<T> task) noexcept {
    if (!task.valid()) return Unexpected(Error::kNoMemory);
    schedule(task.promise());
    while (!task.done()) {
      if (!pass_or_sleep([&task] { return task.done(); })) {
        task.reset();
        return Unexpected(Error::kCancelled);
      }
    }
    return task.take_result();
  }

  // Runs until nothing can ever become runnable again: no ready task, no
  // pending timer, no task waiting for an interrupt.
  void run() noexcept;
  // Expires timers, collects interrupts and runs one pass of ready tasks,
  // never sleeping. False if there was nothing to run.
  bool run_once() noexcept;

  // One pass, or one sleep if nothing is runnable. False when quiescent.
  bool step() noexcept;

  // Utilisation: cycles (hal::cycles()) spent asleep in hal::idle() (the
  // wait; the interrupt handlers it runs are busy time), and all cycles
  // since this executor was created. Snapshot both, subtract later snapshots.
  std::uint64_t idle_cycles() const noexcept { return idle_cycles_; }
  std::uint64_t total_cycles() const noexcept;

  void set_error_reporter(ErrorReporter reporter, void* context) noexcept {
    reporter_ = reporter;
    reporter_context_ = context;
  }
  // Detached tasks that ended in error (or could not be started).
  std::uint64_t failed_tasks() const noexcept { return failed_tasks_; }
  std::size_t detached_tasks() const noexcept { return detached_.size(); }
  std::size_t ready_tasks() const noexcept { return ready_.size(); }
  std::uint64_t idle_count() const noexcept { return idle_count_; }

  // Which run of a task the hart is in, for the stall detector
  // (stall_detector.h), which reads it from an interrupt: odd while a task
  // runs, even between tasks; it moves on at every resumption and every
  // should_yield() (a loop that offers the hart and finds nobody waiting has
  // not kept anyone waiting). Two stores a resumption.
  std::uint64_t run_sequence() const noexcept {
    return run_sequence_.load(std::memory_order_relaxed);
  }

  // --- For awaitables and owners -----------------------------------------
  // Wakes a suspended task: it runs in a later pass.
  void schedule(PromiseBase& task) noexcept { ready_.push(task); }
  // Cooperative yield point: true if another task, an interrupt or a due
  // timer is waiting for the hart.
  bool should_yield() noexcept;
  TimerQueue& timers() noexcept { return timers_; }
  // An InterruptSource with waiters is armed: the executor checks it for
  // pending signals (and does not consider itself quiescent).
  void arm(InterruptSource& source) noexcept;
  void disarm(InterruptSource& source) noexcept;
  void unqueue(PromiseBase& task) noexcept { ready_.remove(task); }

 private:
  void on_task_done(PromiseBase& task) noexcept override;
  Result<void> spawn_promise(PromiseBase* task) noexcept;
  void report(Error error) noexcept;
  void collect_interrupts() noexcept;
  void expire_timers() noexcept;
  void run_pass() noexcept;
  void sleep() noexcept;
  bool quiescent() const noexcept { return ready_.empty() && timers_.empty() && armed_.empty(); }
  // What block_on() and run() loop on: a pass, and when it leaves nothing
  // runnable (and `finished()` is false), sleep() straight away, which
  // looks at the interrupt sources and the timers again with interrupts
  // masked, as a second run_once() would have looked first (a closed-loop
  // UDP echo made three calls to run_once() a packet, the third finding
  // nothing: ~60 instructions). False when quiescent.
  template <typename Finished>
  bool pass_or_sleep(Finished finished) noexcept {
    if (run_once() && (finished() || !ready_.empty())) return true;
    if (quiescent()) return false;
    sleep();
    return true;
  }

  ReadyQueue ready_;
  TimerQueue timers_;
  TaskList detached_;
  using ArmedList = IntrusiveList<InterruptSource, &InterruptSource::armed_link_>;
  ArmedList armed_;  // the sources with waiters
  std::uint64_t start_cycles_;
  std::uint64_t idle_cycles_ = 0;
  std::uint64_t idle_count_ = 0;
  std::uint64_t failed_tasks_ = 0;
  std::atomic<std::uint64_t> run_sequence_{0};
  ErrorReporter reporter_ = nullptr;
  void* reporter_context_ = nullptr;

  static Executor* current_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_EXECUTOR_H_
