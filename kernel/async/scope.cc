#include "kernel/async/scope.h"

namespace starling::async {

Result<void> Scope::adopt(PromiseBase* task) noexcept {
  if (task == nullptr) {
    record(Error::kNoMemory);
    return Unexpected(Error::kNoMemory);
  }
  task->set_owner(this);
  children_.push_back(*task);
  Executor::current().schedule(*task);
  return {};
}

void Scope::record(Error error) noexcept {
  if (failures_++ == 0) first_error_ = error;
}

void Scope::wake_joiner() noexcept {
  if (joiner_ == nullptr || !children_.empty()) return;
  PromiseBase* joiner = joiner_;
  joiner_ = nullptr;
  Executor::current().schedule(*joiner);
}

void Scope::on_task_done(PromiseBase& task) noexcept {
  children_.remove(task);
  if (task.failed()) record(task.error());
  task.handle().destroy();
  wake_joiner();
}

void Scope::cancel() noexcept {
  if (children_.empty()) return;
  children_.destroy_all();
  record(Error::kCancelled);
  wake_joiner();
}

}  // namespace starling::async
