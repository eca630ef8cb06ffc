#ifndef STARLING_KERNEL_ASYNC_WAIT_LIST_H_
#define STARLING_KERNEL_ASYNC_WAIT_LIST_H_

#include "kernel/async/check.h"
#include "kernel/async/promise.h"
#include "kernel/lib/intrusive_list.h"

// Tasks parked on something (an Event, a Semaphore, an InterruptSource):
// an intrusive FIFO of WaitNodes (kernel/lib/intrusive_list.h). A node lives in the awaiter,
// which lives in the waiting coroutine's frame; its destructor unlinks it, so
// destroying a suspended frame (cancellation) leaves no dangling waiter.
namespace starling::async {

class WaitNode {
 public:
  WaitNode() noexcept = default;
  // Awaiters may be moved (into a wrapper task's frame) before they wait.
  WaitNode(WaitNode&& other) noexcept { detail::check(!other.linked()); }
  WaitNode(const WaitNode&) = delete;
  WaitNode& operator=(const WaitNode&) = delete;
  WaitNode& operator=(WaitNode&&) = delete;
  ~WaitNode() { detail::check(!linked()); }  // the owner unlinks first

  bool linked() const noexcept { return link_.linked(); }
  PromiseBase* waiter() const noexcept { return waiter_; }
  void set_waiter(PromiseBase& p) noexcept { waiter_ = &p; }

 private:
  friend class WaitList;
  ListLink<WaitNode> link_;
  PromiseBase* waiter_ = nullptr;
};

class WaitList {
 public:
  WaitList() noexcept = default;
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  ~WaitList() { detail::check(empty()); }  // waiters must not outlive it

  bool empty() const noexcept { return list_.empty(); }

  void push_back(WaitNode& n) noexcept {
    detail::check(!n.linked());
    list_.push_back(n);
  }

  WaitNode* pop_front() noexcept { return list_.pop_front(); }

  // No-op for a node not linked.
  void remove(WaitNode& n) noexcept { list_.remove(n); }

 private:
  IntrusiveList<WaitNode, &WaitNode::link_> list_;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_WAIT_LIST_H_
