#include "drivers/virtio/virtqueue.h"

#include <cstring>

#include "drivers/virtio/barrier.h"

namespace starling::virtio {

Result<void> SplitQueue::init(const Memory& memory, std::uint16_t size, Direction direction) {
  if (size == 0 || size > kMaxSize || !mem::is_power_of_two(size) ||
      memory.descriptors == nullptr || memory.avail == nullptr || memory.used == nullptr ||
      memory.buffers_cpu == nullptr || memory.buffer_bytes == 0) {
    return Unexpected(Error::kInvalidArgument);
  }
  const bool keep_held = size_ != 0;  // a re-init: see below
  std::memset(memory.descriptors, 0, descriptor_bytes(size));
  std::memset(memory.avail, 0, avail_bytes(size));
  std::memset(memory.used, 0, used_bytes(size));
  descriptors_ = reinterpret_cast<volatile Descriptor*>(memory.descriptors);
  avail_ = reinterpret_cast<volatile std::uint16_t*>(memory.avail);
  used_ = memory.used;
  buffers_cpu_ = memory.buffers_cpu;
  buffers_phys_ = memory.buffers_phys;
  buffer_bytes_ = memory.buffer_bytes;
  size_ = size;
  avail_shadow_ = 0;
  published_ = 0;
  last_used_ = 0;
  with_device_ = 0;
  const std::uint16_t flags = direction == Direction::kDeviceWrites ? kDescWrite : 0;
  flags_ = flags;
  // A re-init after a device reset keeps what the stack holds held: those
  // buffers come back through release(), and must not be handed out twice.
  free_count_ = 0;
  for (std::uint16_t id = size; id-- > 0;) {
    descriptors_[id].addr = memory.buffers_phys + std::uint64_t{id} * buffer_bytes_;
    descriptors_[id].len = buffer_bytes_;
    posted_len_[id] = buffer_bytes_;
    descriptors_[id].flags = flags;
    descriptors_[id].next = 0;
    chained_[id] = 0;
    if (keep_held && state_[id] == State::kHeld) continue;
    state_[id] = State::kFree;
    free_stack_[free_count_++] = id;
  }
  return {};
}

Result<void> SplitQueue::post(std::uint16_t id, std::uint32_t len, std::uint32_t offset) {
  if (!is_held(id) || len == 0 || offset >= buffer_bytes_ || len > buffer_bytes_ - offset) {
    return Unexpected(Error::kInvalidArgument);
  }
  enqueue(id, buffers_phys_ + std::uint64_t{id} * buffer_bytes_ + offset, len);
  return {};
}

Result<void> SplitQueue::post_at(std::uint16_t id, mem::PhysAddr address, std::uint32_t len) {
  if (!is_held(id) || len == 0) return Unexpected(Error::kInvalidArgument);
  enqueue(id, address, len);
  return {};
}

Result<void> SplitQueue::post_chain(std::uint16_t head, std::uint32_t head_len, std::uint16_t tail,
                                    std::uint32_t tail_len) {
  if (!is_held(head) || !is_held(tail) || head == tail || head_len == 0 || tail_len == 0 ||
      head_len > buffer_bytes_ || tail_len > buffer_bytes_) {
    return Unexpected(Error::kInvalidArgument);
  }
  descriptors_[tail].addr = buffers_phys_ + std::uint64_t{tail} * buffer_bytes_;
  descriptors_[tail].len = tail_len;
  descriptors_[tail].flags = kDescWrite;
  descriptors_[tail].next = 0;
  descriptors_[head].flags = kDescNext;
  descriptors_[head].next = tail;
  state_[tail] = State::kChained;
  chained_[head] = static_cast<std::uint16_t>(tail + 1u);
  enqueue(head, buffers_phys_ + std::uint64_t{head} * buffer_bytes_, head_len);
  // What the device may claim to have written is the tail's length.
  posted_len_[head] = tail_len;
  return {};
}

void SplitQueue::enqueue(std::uint16_t id, mem::PhysAddr address, std::uint32_t len) {
  descriptors_[id].addr = address;
  descriptors_[id].len = len;
  posted_len_[id] = len;
  avail_ring(avail_shadow_ & (size_ - 1)) = id;
  ++avail_shadow_;
  state_[id] = State::kPosted;
}

bool SplitQueue::publish() {
  for (; published_ != avail_shadow_; ++published_) {
    state_[avail_ring(published_ & (size_ - 1))] = State::kWithDevice;
    ++with_device_;
  }
  // Descriptor and avail-ring entry stores before the idx store that hands
  // them to the device.
  barrier::before_publish();
  avail_idx() = avail_shadow_;
  // The idx store before the used->flags load: a device that read the old
  // idx and then set NO_NOTIFY must not leave us thinking it will look again.
  barrier::store_then_load();
  return (used_flags() & kUsedNoNotify) == 0;
}

std::optional<SplitQueue::Completion> SplitQueue::pop_used() {
  for (;;) {
    if (used_idx() == last_used_) return std::nullopt;
    // The used->idx load before the element (and buffer) loads it covers.
    barrier::after_used_idx();
    const std::uint32_t id = used_ring(last_used_ & (size_ - 1)).id;
    const std::uint32_t len = used_ring(last_used_ & (size_ - 1)).len;
    ++last_used_;
    if (id >= size_ || state_[id] != State::kWithDevice) {
      ++errors_;  // not an id the device had: nothing to give back
      continue;
    }
    state_[id] = State::kHeld;
    --with_device_;
    if (const std::uint16_t tail = chained_[id]; tail != 0) {
      chained_[id] = 0;
      state_[tail - 1u] = State::kHeld;
      descriptors_[id].flags = flags_;
      descriptors_[id].next = 0;
      descriptors_[tail - 1u].flags = flags_;
    }
    // Against our own record of the length posted: the descriptor table is
    // shared memory the device can write, so its len proves nothing.
    const bool len_ok = len <= posted_len_[id];
    if (!len_ok) ++errors_;
    return Completion{static_cast<std::uint16_t>(id), len_ok ? len : 0, len_ok};
  }
}

bool SplitQueue::enable_interrupts() {
  avail_flags() = 0;
  // The flag store before the used->idx re-check: otherwise a completion
  // written just before the device saw the flag would raise no interrupt
  // and go unnoticed until the next one.
  barrier::store_then_load();
  return has_used();
}

void SplitQueue::disable_interrupts() {
  avail_flags() = kAvailNoInterrupt;
}

}  // namespace starling::virtio
