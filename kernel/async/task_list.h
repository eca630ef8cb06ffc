#ifndef STARLING_KERNEL_ASYNC_TASK_LIST_H_
#define STARLING_KERNEL_ASYNC_TASK_LIST_H_

#include <cstddef>

#include "kernel/async/promise.h"

// The tasks one owner (a Scope, the executor's detached set) holds: an
// intrusive doubly linked list through the promises, O(1) to add and remove.
namespace starling::async {

class TaskList {
 public:
  TaskList() noexcept = default;
  TaskList(const TaskList&) = delete;
  TaskList& operator=(const TaskList&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  std::size_t size() const noexcept { return size_; }
  PromiseBase* front() const noexcept { return head_; }

  void push_back(PromiseBase& p) noexcept {
    p.sibling_prev_ = tail_;
    p.sibling_next_ = nullptr;
    if (tail_ != nullptr) {
      tail_->sibling_next_ = &p;
    } else {
      head_ = &p;
    }
    tail_ = &p;
    ++size_;
  }

  void remove(PromiseBase& p) noexcept {
    if (p.sibling_prev_ != nullptr) {
      p.sibling_prev_->sibling_next_ = p.sibling_next_;
    } else {
      head_ = p.sibling_next_;
    }
    if (p.sibling_next_ != nullptr) {
      p.sibling_next_->sibling_prev_ = p.sibling_prev_;
    } else {
      tail_ = p.sibling_prev_;
    }
    p.sibling_prev_ = p.sibling_next_ = nullptr;
    --size_;
  }

  // Destroys every task's frame (cancellation): each frame's awaiters unlink
  // themselves from whatever they waited on as they are destroyed.
  void destroy_all() noexcept {
    while (PromiseBase* p = head_) {
      remove(*p);
      p->handle().destroy();
    }
  }

 private:
  PromiseBase* head_ = nullptr;
  PromiseBase* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TASK_LIST_H_
