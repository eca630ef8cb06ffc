#ifndef STARLING_KERNEL_ASYNC_READY_QUEUE_H_
#define STARLING_KERNEL_ASYNC_READY_QUEUE_H_

#include <cstddef>

#include "kernel/async/check.h"
#include "kernel/async/promise.h"

// The executor's runnable tasks, in wake-up order: an intrusive FIFO through
// PromiseBase::next_. Push and pop are a few stores; nothing is allocated.
namespace starling::async {

class ReadyQueue {
 public:
  ReadyQueue() noexcept = default;
  ReadyQueue(const ReadyQueue&) = delete;
  ReadyQueue& operator=(const ReadyQueue&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  std::size_t size() const noexcept { return size_; }

  void push(PromiseBase& p) noexcept {
    detail::check(!p.queued_);  // a task is woken once per suspension
    p.queued_ = true;
    p.next_ = nullptr;
    *tail_ = &p;
    tail_ = &p.next_;
    ++size_;
  }

  PromiseBase* pop() noexcept {
    PromiseBase* p = head_;
    if (p == nullptr) return nullptr;
    head_ = p->next_;
    if (head_ == nullptr) tail_ = &head_;
    p->queued_ = false;
    --size_;
    return p;
  }

  // O(n), for the rare task destroyed while woken (a cancellation).
  void remove(PromiseBase& p) noexcept {
    for (PromiseBase** link = &head_; *link != nullptr; link = &(*link)->next_) {
      if (*link == &p) {
        *link = p.next_;
        if (tail_ == &p.next_) tail_ = link;
        p.queued_ = false;
        --size_;
        return;
      }
    }
  }

 private:
  PromiseBase* head_ = nullptr;
  PromiseBase** tail_ = &head_;  // the link the next push writes
  std::size_t size_ = 0;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_READY_QUEUE_H_
