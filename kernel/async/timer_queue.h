#ifndef STARLING_KERNEL_ASYNC_TIMER_QUEUE_H_
#define STARLING_KERNEL_ASYNC_TIMER_QUEUE_H_

#include <cstddef>
#include <cstdint>

#include "kernel/async/check.h"

// Pending deadlines, earliest first: an intrusive pairing heap. Insert is
// O(1), removing the earliest or any node (a cancelled sleep, a timeout whose
// operation finished first) is O(log n) amortised. Equal deadlines expire in
// insertion order. The executor arms the board's one wake-up timer for top().
namespace starling::async {

class TimerQueue;

class TimerNode {
 public:
  using Callback = void (*)(TimerNode&) noexcept;

  TimerNode() noexcept = default;
  TimerNode(TimerNode&& other) noexcept { detail::check(!other.linked_); }
  TimerNode(const TimerNode&) = delete;
  TimerNode& operator=(const TimerNode&) = delete;
  TimerNode& operator=(TimerNode&&) = delete;
  ~TimerNode() { detail::check(!linked_); }  // the owner removes it first

  bool linked() const noexcept { return linked_; }
  std::uint64_t deadline() const noexcept { return deadline_; }

 private:
  friend class TimerQueue;
  TimerNode* child_ = nullptr;    // first child
  TimerNode* sibling_ = nullptr;  // next sibling
  TimerNode* prev_ = nullptr;     // previous sibling, or the parent if first child
  std::uint64_t deadline_ = 0;
  std::uint64_t sequence_ = 0;
  Callback expire_ = nullptr;
  bool linked_ = false;
};

class TimerQueue {
 public:
  TimerQueue() noexcept = default;
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  bool empty() const noexcept { return root_ == nullptr; }
  std::size_t size() const noexcept { return size_; }
  TimerNode* top() const noexcept { return root_; }

  // `expire` runs (from expire_until) once the deadline has passed.
  void insert(TimerNode& node, std::uint64_t deadline, TimerNode::Callback expire) noexcept;
  // No-op if the node is not in the queue.
  void remove(TimerNode& node) noexcept;
  // Removes and returns the earliest node, or nullptr.
  TimerNode* pop() noexcept;
  // Pops every node whose deadline is <= now, in order, and runs its
  // callback; callbacks may insert or remove other nodes. Returns how many.
  // The test for nothing due is inline: the executor asks on every pass
  // (several times a packet), and the answer is almost always no.
  std::size_t expire_until(std::uint64_t now) noexcept {
    if (root_ == nullptr || root_->deadline_ > now) return 0;
    return expire_due(now);
  }

 private:
  std::size_t expire_due(std::uint64_t now) noexcept;

  static bool before(const TimerNode& a, const TimerNode& b) noexcept {
    return a.deadline_ < b.deadline_ || (a.deadline_ == b.deadline_ && a.sequence_ < b.sequence_);
  }
  static TimerNode* meld(TimerNode* a, TimerNode* b) noexcept;
  static TimerNode* merge_pairs(TimerNode* first) noexcept;

  TimerNode* root_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_TIMER_QUEUE_H_
