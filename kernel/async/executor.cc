#include "kernel/async/executor.h"

#include "kernel/async/interrupt_source.h"
#include "kernel/hal/clock.h"

namespace starling::async {

Executor* Executor::current_ = nullptr;

namespace detail {
void unqueue(PromiseBase& promise) noexcept {
  Executor::current().unqueue(promise);
}
}  // namespace detail

Executor::Executor() noexcept : start_cycles_(hal::cycles()) {
  detail::check(current_ == nullptr);  // one executor per hart
  current_ = this;
}

Executor::~Executor() {
  detached_.destroy_all();
  current_ = nullptr;
}

std::uint64_t Executor::total_cycles() const noexcept {
  return hal::cycles() - start_cycles_;
}

Result<void> Executor::spawn_promise(PromiseBase* task) noexcept {
  if (task == nullptr) {
    report(Error::kNoMemory);
    return Unexpected(Error::kNoMemory);
  }
  task->set_owner(this);
  detached_.push_back(*task);
  schedule(*task);
  return {};
}

void Executor::on_task_done(PromiseBase& task) noexcept {
  detached_.remove(task);
  const bool failed = task.failed();
  const Error error = task.error();
  task.handle().destroy();
  if (failed) report(error);
}

void Executor::report(Error error) noexcept {
  ++failed_tasks_;
  if (reporter_ != nullptr) reporter_(error, reporter_context_);
}

void Executor::arm(InterruptSource& source) noexcept {
  if (!source.armed_link_.linked()) armed_.push_back(source);
}

void Executor::disarm(InterruptSource& source) noexcept {
  armed_.remove(source);
}

// Cheap when nothing fired: one relaxed load. The flag is cleared before
// the sources are scanned, so a signal racing with the scan is seen either
// now or on the next call.
void Executor::collect_interrupts() noexcept {
  if (!detail::g_interrupt_pending.load(std::memory_order_relaxed)) return;
  detail::g_interrupt_pending.exchange(false, std::memory_order_acq_rel);
  for (InterruptSource* s = armed_.front(); s != nullptr;) {
    InterruptSource* next = ArmedList::next(*s);
    s->wake_if_signalled(*this);
    s = next;
  }
}

void Executor::expire_timers() noexcept {
  if (!timers_.empty()) timers_.expire_until(hal::now_ns());
}

bool Executor::should_yield() noexcept {
  // A new run as far as the stall detector is concerned (stays odd).
  run_sequence_.store(run_sequence_.load(std::memory_order_relaxed) + 2, std::memory_order_relaxed);
  if (!ready_.empty()) return true;
  if (detail::g_interrupt_pending.load(std::memory_order_relaxed)) return true;
  return !timers_.empty() && timers_.top()->deadline() <= hal::now_ns();
}

// Runs the tasks that were ready when the pass began; those woken meanwhile
// wait for the next pass.
void Executor::run_pass() noexcept {
  for (std::size_t n = ready_.size(); n > 0; --n) {
    PromiseBase* task = ready_.pop();
    if (task == nullptr) break;  // a task in this pass cancelled the rest
    // Odd while the task runs (should_yield() adds 2). Only this hart's
    // interrupts read it: relaxed, and the opaque resume() keeps each store
    // on its side.
    run_sequence_.store(run_sequence_.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
    task->resume();
    run_sequence_.store(run_sequence_.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
  }
}

bool Executor::run_once() noexcept {
  collect_interrupts();
  expire_timers();
  if (ready_.empty()) return false;
  run_pass();
  return true;
}

// Interrupts are masked from the last look at the sources until hal::idle()
// sleeps, so a signal in between keeps the hart awake (wfi wakes on a pending
// interrupt even while masked; the host's poll sees the wake-up eventfd).
void Executor::sleep() noexcept {
  const bool were_enabled = hal::mask_interrupts();
  collect_interrupts();
  if (ready_.empty()) {
    expire_timers();
    if (ready_.empty()) {
      hal::set_wakeup(timers_.empty() ? hal::kNoDeadline : timers_.top()->deadline());
      idle_cycles_ += hal::idle();
      ++idle_count_;
    }
  }
  hal::restore_interrupts(were_enabled);
}

bool Executor::step() noexcept {
  if (run_once()) return true;
  if (quiescent()) return false;
  sleep();
  return true;
}

void Executor::run() noexcept {
  while (pass_or_sleep([] { return false; })) {
  }
}

}  // namespace starling::async
