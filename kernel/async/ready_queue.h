#ifndef STARLING_KERNEL_ASYNC_READY_QUEUE_H_
#define STARLING_KERNEL_ASYNC_READY_QUEUE_H_

#include <cstddef>

#include "kernel/async/check.h"
#include "kernel/async/promise.h"
#include "kernel/lib/intrusive_list.h"

// The executor's runnable tasks, in wake-up order: an intrusive FIFO
// (kernel/lib/intrusive_list.h) through the promises. Push, pop and remove
// are a few stores; nothing is allocated.
namespace starling::async {

class ReadyQueue {
 public:
  ReadyQueue() noexcept = default;
  ReadyQueue(const ReadyQueue&) = delete;
  ReadyQueue& operator=(const ReadyQueue&) = delete;

  bool empty() const noexcept { return list_.empty(); }
  std::size_t size() const noexcept { return list_.size(); }

  void push(PromiseBase& p) noexcept {
    detail::check(!p.ready_link_.linked());  // a task is woken once per suspension
    list_.push_back(p);
  }

  PromiseBase* pop() noexcept { return list_.pop_front(); }

  // For the rare task destroyed while woken (a cancellation).
  void remove(PromiseBase& p) noexcept { list_.remove(p); }

 private:
  IntrusiveList<PromiseBase, &PromiseBase::ready_link_> list_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_READY_QUEUE_H_
