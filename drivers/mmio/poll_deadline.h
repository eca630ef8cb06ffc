#ifndef STARLING_DRIVERS_MMIO_POLL_DEADLINE_H_
#define STARLING_DRIVERS_MMIO_POLL_DEADLINE_H_

#include <cstdint>

#include "kernel/hal/clock.h"

namespace starling::mmio {

// The deadline of a busy-wait on a register (MDIO busy, SWR, BMCR reset).
// It passes only once the time is up *and* the register has had
// kLateLooks more looks: a process descheduled across the deadline (a loaded
// host running the device model, whose registers change per read, not per
// nanosecond) still sees a transaction that completed meanwhile. On the
// board the extra looks cost a few hundred nanoseconds on a path that is
// failing anyway.
class PollDeadline {
 public:
  static constexpr unsigned kLateLooks = 4;

  explicit PollDeadline(std::uint64_t timeout_ns) : deadline_ns_(hal::now_ns() + timeout_ns) {}

  // Call after each look that found the register not ready yet.
  bool passed() {
    if (hal::now_ns() <= deadline_ns_) return false;
    return ++late_looks_ > kLateLooks;
  }

 private:
  std::uint64_t deadline_ns_;
  unsigned late_looks_ = 0;
};

}  // namespace starling::mmio

#endif  // STARLING_DRIVERS_MMIO_POLL_DEADLINE_H_
