#ifndef STARLING_DRIVERS_VIRTIO_VIRTQUEUE_H_
#define STARLING_DRIVERS_VIRTIO_VIRTQUEUE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/mem/address.h"

// The driver side of a virtio split virtqueue (virtio 1.1 §2.6): a descriptor
// table, the available ring (driver -> device) and the used ring (device ->
// driver), in memory both sides share. One buffer per descriptor, bound at
// init (descriptor i always points at buffer i), so a descriptor id is also a
// buffer handle. Only a control queue chains: post_chain() hands the device
// two ids as one request (a command it reads, an answer it writes), and the
// pair comes back as one used entry for the first.
//
// Every id is in one of four states, which is what makes the device's
// answers checkable: free (in the queue's free stack), held (the driver or
// the stack above it has it), posted (on the avail ring, not yet published)
// or with the device (published). A used-ring entry is accepted only for an
// id that is with the device; anything else (an id out of range, one not
// published, one the device returns twice, even after the driver re-posted
// it in the same batch) is counted in errors() and skipped, never trusted.
//
// Notification suppression without EVENT_IDX: the driver sets
// VIRTQ_AVAIL_F_NO_INTERRUPT while it is busy anyway (it turns interrupts
// back on, then looks once more, before it sleeps), and publish() reports
// whether the device asked for a notify (VIRTQ_USED_F_NO_NOTIFY clear).
namespace starling::virtio {

struct Descriptor {
  std::uint64_t addr;
  std::uint32_t len;
  std::uint16_t flags;
  std::uint16_t next;
};
static_assert(sizeof(Descriptor) == 16);

struct UsedElement {
  std::uint32_t id;
  std::uint32_t len;  // bytes the device wrote into the buffer
};
static_assert(sizeof(UsedElement) == 8);

inline constexpr std::uint16_t kDescNext = 1;
inline constexpr std::uint16_t kDescWrite = 2;         // device writes this buffer
inline constexpr std::uint16_t kAvailNoInterrupt = 1;  // avail->flags
inline constexpr std::uint16_t kUsedNoNotify = 1;      // used->flags

class SplitQueue {
 public:
  static constexpr std::uint16_t kMaxSize = 256;

  // Bytes and alignment of each part for `size` entries (§2.6: 16, 2, 4).
  static constexpr std::size_t descriptor_bytes(std::uint16_t size) { return 16u * size; }
  static constexpr std::size_t avail_bytes(std::uint16_t size) { return 6u + 2u * size; }
  static constexpr std::size_t used_bytes(std::uint16_t size) { return 6u + 8u * size; }

  enum class Direction { kDeviceReads, kDeviceWrites };

  // Where the three parts are (CPU pointers, zeroed here) and where the
  // buffers are: buffer i at buffers_cpu/phys + i * buffer_bytes.
  struct Memory {
    std::byte* descriptors = nullptr;  // 16-byte aligned
    std::byte* avail = nullptr;        // 2-byte aligned
    std::byte* used = nullptr;         // 4-byte aligned
    std::byte* buffers_cpu = nullptr;
    mem::PhysAddr buffers_phys = 0;
    std::uint32_t buffer_bytes = 0;
  };

  // `size` a power of two, 1..kMaxSize. Every id ends up free. Calling it
  // again starts over (a device reset): ids held above stay held.
  Result<void> init(const Memory& memory, std::uint16_t size, Direction direction);

  // A free id, now held; nullopt when all are out. (These accessors are
  // inline: each runs once or more per packet, and out of line their calls
  // cost more than their bodies.)
  std::optional<std::uint16_t> take_free() {
    if (free_count_ == 0) return std::nullopt;
    const std::uint16_t id = free_stack_[--free_count_];
    state_[id] = State::kHeld;
    return id;
  }
  // A held id back to the free stack. kInvalidArgument if it is not held.
  Result<void> put_free(std::uint16_t id) {
    if (!is_held(id)) return Unexpected(Error::kInvalidArgument);
    state_[id] = State::kFree;
    free_stack_[free_count_++] = id;
    return {};
  }
  // Puts a held id on the avail ring with `len` bytes of its buffer (the
  // whole buffer for device-writes queues), starting `offset` bytes into it
  // (virtio puts no alignment rule on buffers; a transmit picks the offset
  // that lets its copy run on aligned words). Not visible until publish().
  // kInvalidArgument for an id not held or offset + len beyond the buffer.
  Result<void> post(std::uint16_t id, std::uint32_t len, std::uint32_t offset = 0);
  // Puts a held id on the avail ring pointing at `len` bytes at `address`
  // instead of its own buffer (a transmit from another queue's buffer,
  // which the caller keeps alive until the id is used). The next post()
  // points the id at its own buffer again. kInvalidArgument for an id not
  // held or len 0.
  Result<void> post_at(std::uint16_t id, mem::PhysAddr address, std::uint32_t len);
  // Puts two held ids on the avail ring as one chain (virtio 1.1 §2.6.5):
  // the first `head_len` bytes of head's buffer for the device to read,
  // then the first `tail_len` bytes of tail's for it to write. The used
  // entry names head (its len counts what the device wrote into tail);
  // pop_used() gives both back held, and their descriptors as init() left
  // them. kInvalidArgument for ids not held, the same id twice, a length 0
  // or beyond the buffer.
  Result<void> post_chain(std::uint16_t head, std::uint32_t head_len, std::uint16_t tail,
                          std::uint32_t tail_len);
  // Makes posted ids visible to the device. True if the device wants to be
  // notified (the caller then writes QueueNotify).
  bool publish();

  struct Completion {
    std::uint16_t id;
    std::uint32_t len;
    bool len_ok;  // false: the device claimed more than the buffer holds
  };
  // True if the device has put entries on the used ring we have not read.
  bool has_used() const { return used_idx() != last_used_; }
  // The next used entry for an id the device had; the id is held again.
  // Bad entries are counted and skipped.
  std::optional<Completion> pop_used();

  // Device-to-driver interrupts for this queue on or off (a hint to the
  // device). Turning them on returns has_used() read after the flag store:
  // true means work arrived meanwhile and the caller must not sleep.
  bool enable_interrupts();
  void disable_interrupts();

  std::span<std::byte> buffer(std::uint16_t id) const {
    return {buffers_cpu_ + std::size_t{id} * buffer_bytes_, buffer_bytes_};
  }
  bool is_held(std::uint16_t id) const { return id < size_ && state_[id] == State::kHeld; }
  std::uint16_t size() const { return size_; }
  std::uint16_t with_device() const { return with_device_; }
  std::uint16_t free_count() const { return free_count_; }
  std::uint64_t errors() const { return errors_; }

 private:
  // kChained: the second half of a posted chain; it follows its head.
  enum class State : std::uint8_t { kFree, kHeld, kPosted, kWithDevice, kChained };

  // The descriptor and avail-ring entry of a post, checked by the caller.
  void enqueue(std::uint16_t id, mem::PhysAddr address, std::uint32_t len);

  volatile std::uint16_t& avail_flags() const { return avail_[0]; }
  volatile std::uint16_t& avail_idx() const { return avail_[1]; }
  volatile std::uint16_t& avail_ring(std::uint16_t slot) const { return avail_[2 + slot]; }
  volatile std::uint16_t& used_flags() const {
    return *reinterpret_cast<volatile std::uint16_t*>(used_);
  }
  volatile std::uint16_t& used_idx() const {
    return *reinterpret_cast<volatile std::uint16_t*>(used_ + 2);
  }
  volatile UsedElement& used_ring(std::uint16_t slot) const {
    return reinterpret_cast<volatile UsedElement*>(used_ + 4)[slot];
  }

  volatile Descriptor* descriptors_ = nullptr;
  volatile std::uint16_t* avail_ = nullptr;
  std::byte* used_ = nullptr;
  std::byte* buffers_cpu_ = nullptr;
  std::uint64_t buffers_phys_ = 0;
  std::uint32_t buffer_bytes_ = 0;
  std::uint16_t size_ = 0;
  std::uint16_t flags_ = 0;         // every descriptor's flags outside a chain
  std::uint16_t avail_shadow_ = 0;  // next avail->idx to publish
  std::uint16_t published_ = 0;     // avail->idx as last published
  std::uint16_t last_used_ = 0;     // next used entry to read
  std::uint16_t with_device_ = 0;
  std::uint16_t free_count_ = 0;
  std::uint64_t errors_ = 0;
  std::array<State, kMaxSize> state_{};
  std::array<std::uint16_t, kMaxSize> free_stack_{};
  std::array<std::uint32_t, kMaxSize> posted_len_{};  // what each id was posted with
  std::array<std::uint16_t, kMaxSize> chained_{};     // per head: 1 + its tail, or 0
};

}  // namespace starling::virtio

#endif  // STARLING_DRIVERS_VIRTIO_VIRTQUEUE_H_
