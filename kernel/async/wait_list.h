#ifndef STARLING_KERNEL_ASYNC_WAIT_LIST_H_
#define STARLING_KERNEL_ASYNC_WAIT_LIST_H_

#include "kernel/async/check.h"
#include "kernel/async/promise.h"

// Tasks parked on something (an Event, a Semaphore, an InterruptSource):
// an intrusive doubly linked FIFO of WaitNodes. A node lives in the awaiter,
// which lives in the waiting coroutine's frame; its destructor unlinks it, so
// destroying a suspended frame (cancellation) leaves no dangling waiter.
namespace starling::async {

class WaitNode {
 public:
  WaitNode() noexcept = default;
  // Awaiters may be moved (into a wrapper task's frame) before they wait.
  WaitNode(WaitNode&& other) noexcept { detail::check(!other.linked_); }
  WaitNode(const WaitNode&) = delete;
  WaitNode& operator=(const WaitNode&) = delete;
  WaitNode& operator=(WaitNode&&) = delete;
  ~WaitNode() { detail::check(!linked_); }  // the owner unlinks first

  bool linked() const noexcept { return linked_; }
  PromiseBase* waiter() const noexcept { return waiter_; }
  void set_waiter(PromiseBase& p) noexcept { waiter_ = &p; }

 private:
  friend class WaitList;
  WaitNode* prev_ = nullptr;
  WaitNode* next_ = nullptr;
  PromiseBase* waiter_ = nullptr;
  bool linked_ = false;
};

class WaitList {
 public:
  WaitList() noexcept = default;
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  ~WaitList() { detail::check(empty()); }  // waiters must not outlive it

  bool empty() const noexcept { return head_ == nullptr; }

  void push_back(WaitNode& n) noexcept {
    detail::check(!n.linked_);
    n.linked_ = true;
    n.next_ = nullptr;
    n.prev_ = tail_;
    if (tail_ != nullptr) {
      tail_->next_ = &n;
    } else {
      head_ = &n;
    }
    tail_ = &n;
  }

  WaitNode* pop_front() noexcept {
    WaitNode* n = head_;
    if (n != nullptr) remove(*n);
    return n;
  }

  void remove(WaitNode& n) noexcept {
    if (!n.linked_) return;
    if (n.prev_ != nullptr) {
      n.prev_->next_ = n.next_;
    } else {
      head_ = n.next_;
    }
    if (n.next_ != nullptr) {
      n.next_->prev_ = n.prev_;
    } else {
      tail_ = n.prev_;
    }
    n.prev_ = n.next_ = nullptr;
    n.linked_ = false;
  }

 private:
  WaitNode* head_ = nullptr;
  WaitNode* tail_ = nullptr;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_WAIT_LIST_H_
