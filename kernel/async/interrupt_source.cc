#include "kernel/async/interrupt_source.h"

#include "kernel/async/executor.h"

namespace starling::async {

namespace detail {
std::atomic<bool> g_interrupt_pending{false};
}  // namespace detail

InterruptSource::~InterruptSource() {
  // Waiters hold this source; they must be gone (destroyed or woken) first.
  detail::check(waiters_.empty() && !armed_link_.linked());
}

bool InterruptSource::wake_if_signalled(Executor& executor) noexcept {
  if (!consume()) return false;
  while (WaitNode* n = waiters_.pop_front()) executor.schedule(*n->waiter());
  executor.disarm(*this);
  return true;
}

void InterruptSource::Awaiter::suspend(PromiseBase& task) noexcept {
  node_.set_waiter(task);
  source_->waiters_.push_back(node_);
  Executor::current().arm(*source_);
}

void InterruptSource::Awaiter::leave() noexcept {
  source_->waiters_.remove(node_);
  if (source_->waiters_.empty()) Executor::current().disarm(*source_);
}

}  // namespace starling::async
