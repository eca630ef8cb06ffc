#ifndef STARLING_BENCH_ECHO_PACING_H_
#define STARLING_BENCH_ECHO_PACING_H_

#include <cstdint>

// When each packet of a paced run is due. Packet i is due at
// start + i * interval, the interval computed from the requested rate with
// no accumulated rounding (packet i's time is computed from i, never by
// adding intervals), so a long run keeps the rate exactly.
namespace starling::bench {

class PacingSchedule {
 public:
  // rate_bps: bits per second of UDP payload; payload_bytes per packet.
  // Both must be > 0 (checked by the caller's flag parsing).
  PacingSchedule(std::uint64_t start_ns, double rate_bps, std::uint32_t payload_bytes);

  // Monotonic time at which packet `index` is due.
  std::uint64_t due_ns(std::uint64_t index) const;

  // How many packets are due by `now_ns` (packets 0..n-1), i.e. the index of
  // the first packet not yet due.
  std::uint64_t due_count(std::uint64_t now_ns) const;

  double interval_ns() const { return interval_ns_; }

 private:
  std::uint64_t start_ns_;
  double interval_ns_;
};

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_PACING_H_
