#include "kernel/async/timer_queue.h"

namespace starling::async {

// Both are roots (no siblings, no parent); the later one becomes the
// earlier one's first child.
TimerNode* TimerQueue::meld(TimerNode* a, TimerNode* b) noexcept {
  if (before(*b, *a)) {
    TimerNode* t = a;
    a = b;
    b = t;
  }
  b->prev_ = a;
  b->sibling_ = a->child_;
  if (a->child_ != nullptr) a->child_->prev_ = b;
  a->child_ = b;
  return a;
}

// The two-pass merge of a sibling list (left to right in pairs, then the
// pairs right to left), iterative so a long list costs no stack.
TimerNode* TimerQueue::merge_pairs(TimerNode* first) noexcept {
  if (first == nullptr) return nullptr;
  TimerNode* pairs = nullptr;  // a stack of melded pairs, linked via sibling_
  while (first != nullptr) {
    TimerNode* a = first;
    TimerNode* b = a->sibling_;
    first = b != nullptr ? b->sibling_ : nullptr;
    a->sibling_ = a->prev_ = nullptr;
    TimerNode* m = a;
    if (b != nullptr) {
      b->sibling_ = b->prev_ = nullptr;
      m = meld(a, b);
    }
    m->sibling_ = pairs;
    pairs = m;
  }
  TimerNode* result = pairs;
  pairs = pairs->sibling_;
  result->sibling_ = nullptr;
  while (pairs != nullptr) {
    TimerNode* n = pairs;
    pairs = n->sibling_;
    n->sibling_ = nullptr;
    result = meld(result, n);
  }
  result->prev_ = nullptr;
  return result;
}

void TimerQueue::insert(TimerNode& node, std::uint64_t deadline,
                        TimerNode::Callback expire) noexcept {
  detail::check(!node.linked_);
  node.child_ = node.sibling_ = node.prev_ = nullptr;
  node.deadline_ = deadline;
  node.sequence_ = next_sequence_++;
  node.expire_ = expire;
  node.linked_ = true;
  root_ = root_ == nullptr ? &node : meld(root_, &node);
  ++size_;
}

TimerNode* TimerQueue::pop() noexcept {
  TimerNode* top = root_;
  if (top == nullptr) return nullptr;
  root_ = merge_pairs(top->child_);
  top->child_ = top->sibling_ = top->prev_ = nullptr;
  top->linked_ = false;
  --size_;
  return top;
}

void TimerQueue::remove(TimerNode& node) noexcept {
  if (!node.linked_) return;
  if (&node == root_) {
    pop();
    return;
  }
  // Cut the node (with its subtree) out of its sibling list...
  if (node.prev_->child_ == &node) {
    node.prev_->child_ = node.sibling_;
  } else {
    node.prev_->sibling_ = node.sibling_;
  }
  if (node.sibling_ != nullptr) node.sibling_->prev_ = node.prev_;
  // ...and put its children back as one heap.
  if (TimerNode* rest = merge_pairs(node.child_); rest != nullptr) root_ = meld(root_, rest);
  node.child_ = node.sibling_ = node.prev_ = nullptr;
  node.linked_ = false;
  --size_;
}

std::size_t TimerQueue::expire_due(std::uint64_t now) noexcept {
  std::size_t n = 0;
  while (root_ != nullptr && root_->deadline_ <= now) {
    TimerNode* node = pop();
    node->expire_(*node);
    ++n;
  }
  return n;
}

}  // namespace starling::async
