#ifndef STARLING_DRIVERS_NIC_RING_DRIVER_H_
#define STARLING_DRIVERS_NIC_RING_DRIVER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "drivers/irq/irq.h"
#include "kernel/async/cancellable_wait.h"
#include "kernel/async/interrupt_source.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/clock.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"

// The transmit and release rules of kernel/hal/nic.h, written once for every
// NIC driver with a TX ring and RX buffers it lends to the stack. What
// differs between devices (descriptor formats, doorbells, how a slot is
// found) stays in the driver, behind these operations, which the driver
// defines (privately, with `friend class nic::RingDriver<Driver, kRxBuffers>;`):
//
//   void reclaim_tx();            take back the TX slots the device finished
//   bool tx_full() const;         no TX slot is free (after reclaim_tx)
//   void fill_tx(std::span<const hal::TxFragment>, std::uint32_t bytes);
//                                 one frame of `bytes` (checked to fit) into
//                                 the next free slot, posted to the ring but
//                                 not yet shown to the device
//   void start_tx();              show the posted frames to the device (tail
//                                 pointer write, queue notification)
//   bool rx_held(hal::RxHandle) const;  the buffer is out with the stack
//   void repost_rx(hal::RxHandle);      back to the device's free buffers
//   void publish_rx();            show the reposted buffers to the device
//   hal::NicStats& nic_stats();
//   Result<bool> service_device();   read and acknowledge the device's
//                                 interrupt causes, handle what is not ring
//                                 work (a configuration change, a reset, a
//                                 link poll); true when the stack must look
//   bool rings_ready() const;     the rings are there (false while a device
//                                 is in a reset it has not finished)
//   bool rx_ready() const;        a received frame waits
//   bool arm_interrupts(bool tx_full);  RX (and, with the TX ring full, TX
//                                 completion) interrupts on, then one more
//                                 look: true when work arrived meanwhile
//   void disarm_interrupts();     RX and TX completion interrupts off
//   std::uint64_t wake_deadline_ns() const;  when to wake without an
//                                 interrupt (a link poll), or 0: not now.
//                                 Optional: a device that interrupts on every
//                                 change (virtio-net) leaves it out, and its
//                                 wait has no timer path at all
//   bool can_send_in_place(hal::RxHandle, std::span<const std::byte>) const;
//                                 the frame lies where the device can send it
//                                 from (inside the buffer, room for the
//                                 driver's own header in front)
//   void fill_tx_in_place(hal::RxHandle, std::span<std::byte> frame);
//                                 one frame from that RX buffer into the next
//                                 free slot, posted, not yet shown; the driver
//                                 remembers which buffer the slot holds and
//                                 calls end_loan(handle) when the slot
//                                 completes or a reset drops it
//
// Batches are the point: a transmit() of many frames starts the device once,
// a release() of many handles publishes once.
//
// Loans (transmit_in_place): an RX buffer sent from where it arrived is
// lent to the TX ring, and may be released by the stack before the device
// has read it. The release then waits for the loan's end: the buffer goes
// back to the device's RX ring only when both the stack and the TX ring are
// done with it. At most hal::kMaxRxLoans at once; past that, and for a
// buffer already on loan, the frame is copied as transmit() would.
namespace starling::nic {

// Copies a frame's fragments back to back to `to`; returns the end.
inline std::byte* copy_fragments(std::byte* to, std::span<const hal::TxFragment> fragments) {
  for (const hal::TxFragment& fragment : fragments) {
    if (fragment.empty()) continue;
    std::memcpy(to, fragment.data(), fragment.size());  // the one copy
    to += fragment.size();
  }
  return to;
}

// The bytes of a frame given as fragments, or kInvalidArgument if they total
// 0 or more than hal::kMaxFrameBytes. Checked before anything is written.
inline Result<std::uint32_t> gathered_length(std::span<const hal::TxFragment> fragments) {
  std::size_t bytes = 0;
  for (const hal::TxFragment& fragment : fragments) {
    bytes += fragment.size();
    if (bytes > hal::kMaxFrameBytes) return Unexpected(Error::kInvalidArgument);
  }
  if (bytes == 0) return Unexpected(Error::kInvalidArgument);
  return static_cast<std::uint32_t>(bytes);
}

template <typename Driver, std::size_t kRxBuffers>
class RingDriver {
 public:
  // hal::Nic::transmit: frames in order until one is invalid or the ring is
  // full; the device is started once for all of them.
  Result<std::size_t> transmit(std::span<const std::span<const std::byte>> frames) {
    return transmit_batch(
        frames,
        [](std::span<const std::byte> frame) {
          return !frame.empty() && frame.size() <= hal::kMaxFrameBytes;
        },
        [this](const std::span<const std::byte>& frame) {
          driver().fill_tx(std::span(&frame, 1), static_cast<std::uint32_t>(frame.size()));
        });
  }

  // hal::Nic::transmit_gather: the whole frame is checked before a slot is
  // taken or a byte written.
  Result<void> transmit_gather(std::span<const hal::TxFragment> fragments) {
    Driver& d = driver();
    auto bytes = gathered_length(fragments);
    if (!bytes.ok()) return Unexpected(bytes.error());
    d.reclaim_tx();
    if (d.tx_full()) {
      ++d.nic_stats().tx_busy;
      return Unexpected(Error::kBusy);
    }
    d.fill_tx(fragments, *bytes);
    d.start_tx();
    return {};
  }

  // hal::Nic::transmit_in_place: like transmit(), each frame from its own
  // RX buffer when it can be lent, else copied.
  Result<std::size_t> transmit_in_place(std::span<const hal::RxFrame> frames) {
    return transmit_batch(
        frames,
        [this](const hal::RxFrame& frame) {
          return stack_holds(frame.handle) && !frame.data.empty() &&
                 frame.data.size() <= hal::kMaxFrameBytes &&
                 driver().can_send_in_place(frame.handle, frame.data);
        },
        [this](const hal::RxFrame& frame) {
          Driver& d = driver();
          Loan& loan = loans_[frame.handle];
          if (loan == Loan::kNone && loans_out_ < hal::kMaxRxLoans) {
            loan = Loan::kLent;
            ++loans_out_;
            d.fill_tx_in_place(frame.handle, frame.data);
            ++d.nic_stats().tx_in_place;
          } else {
            const hal::TxFragment whole = frame.data;
            d.fill_tx(std::span(&whole, 1), static_cast<std::uint32_t>(frame.data.size()));
            ++d.nic_stats().tx_in_place_copied;
          }
        });
  }

  // hal::Nic::release: a handle not out with the stack is refused and
  // changes nothing.
  Result<void> release(hal::RxHandle handle) {
    Driver& d = driver();
    if (!stack_holds(handle)) return Unexpected(Error::kInvalidArgument);
    if (!give_back(handle)) d.publish_rx();
    return {};
  }

  // Every valid handle goes back, one publication for the batch; the
  // result says whether any was refused.
  Result<void> release(std::span<const hal::RxHandle> handles) {
    Driver& d = driver();
    Result<void> result;
    bool reposted = false;
    for (const hal::RxHandle handle : handles) {
      if (!stack_holds(handle)) {
        result = Unexpected(Error::kInvalidArgument);
        continue;
      }
      reposted = !give_back(handle) || reposted;
    }
    if (reposted) d.publish_rx();
    return result;
  }

  // RX buffers lent to the TX ring right now.
  std::size_t rx_loans() const { return loans_out_; }

  // hal::Nic::wait_for_work: completes when there is work (a frame
  // received, room in a full TX ring, something the device reported), else
  // sleeps on the device's interrupt. The ordering that loses no wake-up:
  // interrupts on, then one more look (work that came before the enable is
  // seen here, work after it interrupts), then the interrupt line unmasked,
  // then the sleep. The stack drains with RX and TX interrupts off again.
  //
  // An awaiter, not a task: the look runs in await_ready() and the sleep
  // parks the caller in its own frame, so a wake costs no frame (a task
  // here, and one more around the interrupt's wait for a driver with a link
  // poll, cost ~150 instructions a wake each: docs/benchmarks.md). A
  // CancellableWait: a deadline bounds it in place. It completes once per
  // wake-up, work or not (an interrupt for nothing, a link poll due): the
  // caller looks and waits again, as it does after any spurious wake.
  class [[nodiscard]] WorkWait {
   public:
    static constexpr bool kCancellableWait = true;

    explicit WorkWait(RingDriver& nic) noexcept : nic_(&nic) {}
    // Moved only before it waits: nothing but the driver to carry over.
    WorkWait(WorkWait&& other) noexcept : nic_(other.nic_) {}

    bool await_ready() noexcept { return look(); }
    template <async::TaskPromiseType P>
    void await_suspend(std::coroutine_handle<P> parent) noexcept {
      if (!kPolls || deadline_ == 0) {
        sleep_.emplace(nic_->interrupt_);
        sleep_->await_suspend(parent);
      } else {
        polled_sleep_.emplace(
            async::detail::BoundWait<async::InterruptSource::Awaiter>(nic_->interrupt_.wait()),
            deadline_);
        (void)polled_sleep_->await_suspend(parent);  // a wait: nothing to resume in place
      }
    }
    Result<void> await_resume() noexcept {
      if (failed_) return Unexpected(error_);
      Driver& d = nic_->driver();
      // Woken by the interrupt, or by the link poll's deadline.
      const bool interrupted =
          sleep_.has_value() || (polled_sleep_.has_value() && polled_sleep_->await_resume().ok());
      poll_due_ = poll_due_ || (polled_sleep_.has_value() && !interrupted);
      sleep_.reset();
      polled_sleep_.reset();
      if (interrupted && ready_) ++d.nic_stats().interrupts;
      Result<void> result;
      // The poll now, so that the caller sees the link as it is (a link
      // change is work); the rings' own work waits for the next look.
      if (poll_due_) {
        if (auto polled = d.service_device(); !polled.ok()) result = Unexpected(polled.error());
      }
      if (d.rings_ready()) d.disarm_interrupts();
      return result;
    }

   private:
    static constexpr bool kPolls = requires(const Driver& d) { d.wake_deadline_ns(); };

    // Out of line: one copy per driver, not one inlined into every waiter.
    [[gnu::noinline]] bool look() noexcept {
      Driver& d = nic_->driver();
      for (;;) {
        auto serviced = d.service_device();
        if (!serviced.ok()) {
          failed_ = true;
          error_ = serviced.error();
          return true;
        }
        ready_ = d.rings_ready();
        if (ready_) {
          // Reclaim here, not only in transmit(): completions left on a full
          // ring made every call return at once, forever (the netif spun).
          // Room that appeared in a full ring is work for a waiting sender.
          const bool was_full = d.tx_full();
          d.reclaim_tx();
          const bool tx_full = d.tx_full();
          if (*serviced || d.rx_ready() || (was_full && !tx_full)) return true;
          if (d.arm_interrupts(tx_full)) return true;
          if (nic_->irq_ != 0) irq::unmask(nic_->irq_);
        } else if (*serviced) {
          return true;  // in a reset: no rings and no interrupts; the next poll retries
        }
        // Signalled since the last look: look again rather than sleep.
        if (!nic_->interrupt_.consume()) break;
        if (ready_) ++d.nic_stats().interrupts;
      }
      if constexpr (kPolls) deadline_ = d.wake_deadline_ns();
      // A poll already due: no sleep; await_resume() polls.
      poll_due_ = deadline_ != 0 && deadline_ <= hal::now_ns();
      return poll_due_;
    }
    RingDriver* nic_;
    bool failed_ = false;  // service_device() failed: error_
    Error error_ = Error::kCancelled;
    bool ready_ = false;
    bool poll_due_ = false;  // completing for the link poll's deadline
    std::uint64_t deadline_ = 0;
    std::optional<async::InterruptSource::Awaiter> sleep_;
    std::optional<async::WaitWithTimeout<async::InterruptSource::Awaiter>> polled_sleep_;
  };
  static_assert(async::CancellableWait<WorkWait>);

  WorkWait wait_for_work() noexcept { return WorkWait(*this); }

 protected:
  RingDriver() = default;
  ~RingDriver() = default;

  // The device's interrupt line (0: none, polled) and what its handler
  // signals.
  std::uint32_t irq_ = 0;
  async::InterruptSource interrupt_;

  // The driver's TX slot holding `handle`'s buffer completed, or a reset
  // dropped it: the buffer is back with the stack, or, if the stack has
  // released it meanwhile, reposted (the driver publishes after its batch).
  // True when it was reposted.
  bool end_loan(hal::RxHandle handle) {
    Loan& loan = loans_[handle];
    if (loan == Loan::kNone) return false;  // the driver's bookkeeping says otherwise: ignore
    const bool released = loan == Loan::kReleased;
    loan = Loan::kNone;
    --loans_out_;
    if (released) driver().repost_rx(handle);
    return released;
  }

 private:
  enum class Loan : std::uint8_t { kNone, kLent, kReleased };

  Driver& driver() { return static_cast<Driver&>(*this); }

  // The batch rule transmit() and transmit_in_place() share: frames in order
  // until one is invalid (kInvalidArgument if it is the first) or the ring
  // is full (kBusy, counted, if no frame fit); one start for the batch.
  template <typename Frame, typename IsValid, typename Fill>
  Result<std::size_t> transmit_batch(std::span<const Frame> frames, IsValid is_valid, Fill fill) {
    Driver& d = driver();
    d.reclaim_tx();
    std::size_t count = 0;
    for (const Frame& frame : frames) {
      if (!is_valid(frame)) {
        if (count == 0) return Unexpected(Error::kInvalidArgument);
        break;
      }
      if (d.tx_full()) {
        if (count == 0) {
          ++d.nic_stats().tx_busy;
          return Unexpected(Error::kBusy);
        }
        break;
      }
      fill(frame);
      ++count;
    }
    if (count != 0) d.start_tx();
    return count;
  }

  // Out with the stack: the driver says held, and no release is pending.
  bool stack_holds(hal::RxHandle handle) {
    return driver().rx_held(handle) && handle < kRxBuffers && loans_[handle] != Loan::kReleased;
  }
  // Reposts the buffer (false), or, while the TX ring still has it, leaves
  // that to end_loan() (true).
  bool give_back(hal::RxHandle handle) {
    if (loans_[handle] == Loan::kLent) {
      loans_[handle] = Loan::kReleased;
      return true;
    }
    driver().repost_rx(handle);
    return false;
  }

  std::array<Loan, kRxBuffers> loans_{};
  std::size_t loans_out_ = 0;
};

}  // namespace starling::nic

#endif  // STARLING_DRIVERS_NIC_RING_DRIVER_H_
