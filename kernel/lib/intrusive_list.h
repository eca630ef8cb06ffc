#ifndef STARLING_KERNEL_LIB_INTRUSIVE_LIST_H_
#define STARLING_KERNEL_LIB_INTRUSIVE_LIST_H_

#include <cstddef>

// A doubly linked FIFO threaded through its elements: the element carries a
// ListLink member, the list only points at elements. Nothing is allocated,
// push/pop/remove are O(1), and an element knows whether it is linked, so a
// destructor can unlink itself (what makes destroying a suspended coroutine
// safe). One element may sit in several lists at once through several links.
//
//   struct Task { ListLink<Task> ready; ListLink<Task> sibling; };
//   IntrusiveList<Task, &Task::ready> ready_queue;
//
// The link's owner names it in the template argument, so a private link is
// usable by whoever may name it (a friend).
namespace starling {

template <typename T>
class ListLink {
 public:
  ListLink() noexcept = default;
  ListLink(const ListLink&) = delete;
  ListLink& operator=(const ListLink&) = delete;

  bool linked() const noexcept { return linked_; }

 private:
  template <typename U, ListLink<U> U::*>
  friend class IntrusiveList;
  T* prev_ = nullptr;
  T* next_ = nullptr;
  bool linked_ = false;
};

template <typename T, ListLink<T> T::* kLink>
class IntrusiveList {
 public:
  IntrusiveList() noexcept = default;
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  std::size_t size() const noexcept { return size_; }
  T* front() const noexcept { return head_; }
  // The element after `element` (which must be in this list), or null.
  static T* next(const T& element) noexcept { return (element.*kLink).next_; }

  // `element` must not be in a list through this link.
  void push_back(T& element) noexcept {
    ListLink<T>& link = element.*kLink;
    link.linked_ = true;
    link.prev_ = tail_;
    link.next_ = nullptr;
    if (tail_ != nullptr) {
      (tail_->*kLink).next_ = &element;
    } else {
      head_ = &element;
    }
    tail_ = &element;
    ++size_;
  }

  T* pop_front() noexcept {
    T* element = head_;
    if (element != nullptr) remove(*element);
    return element;
  }

  // Unlinks `element` if it is linked (into this list: one list per link).
  void remove(T& element) noexcept {
    ListLink<T>& link = element.*kLink;
    if (!link.linked_) return;
    if (link.prev_ != nullptr) {
      (link.prev_->*kLink).next_ = link.next_;
    } else {
      head_ = link.next_;
    }
    if (link.next_ != nullptr) {
      (link.next_->*kLink).prev_ = link.prev_;
    } else {
      tail_ = link.prev_;
    }
    link.prev_ = link.next_ = nullptr;
    link.linked_ = false;
    --size_;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace starling

#endif  // STARLING_KERNEL_LIB_INTRUSIVE_LIST_H_
