#ifndef STARLING_KERNEL_ASYNC_TASK_LIST_H_
#define STARLING_KERNEL_ASYNC_TASK_LIST_H_

#include <cstddef>

#include "kernel/async/promise.h"
#include "kernel/lib/intrusive_list.h"

// The tasks one owner (a Scope, the executor's detached set) holds: an
// intrusive list (kernel/lib/intrusive_list.h) through the promises, O(1)
// to add and remove.
namespace starling::async {

class TaskList {
 public:
  TaskList() noexcept = default;
  TaskList(const TaskList&) = delete;
  TaskList& operator=(const TaskList&) = delete;

  bool empty() const noexcept { return list_.empty(); }
  std::size_t size() const noexcept { return list_.size(); }
  PromiseBase* front() const noexcept { return list_.front(); }
  void push_back(PromiseBase& p) noexcept { list_.push_back(p); }
  void remove(PromiseBase& p) noexcept { list_.remove(p); }

  // Destroys every task's frame (cancellation): each frame's awaiters unlink
  // themselves from whatever they waited on as they are destroyed.
  void destroy_all() noexcept {
    while (PromiseBase* p = list_.pop_front()) p->handle().destroy();
  }

 private:
  IntrusiveList<PromiseBase, &PromiseBase::sibling_link_> list_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TASK_LIST_H_
