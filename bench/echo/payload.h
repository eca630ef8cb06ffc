#ifndef STARLING_BENCH_ECHO_PAYLOAD_H_
#define STARLING_BENCH_ECHO_PAYLOAD_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

// What every benchmark packet carries, and how a reply is judged.
//
// Payload (little-endian): magic u64, run id u32, 0 u32, sequence u64,
// send time u64 (CLOCK_MONOTONIC ns on the generator), then filler whose
// every byte depends on the sequence number and its offset, so a reply with
// any byte changed, cut short or grown is caught as corrupted.
namespace starling::bench {

inline constexpr std::uint64_t kPayloadMagic = 0x48434e4542524154ull;  // "TARBENCH"
inline constexpr std::size_t kPayloadHeaderBytes = 32;

// Writes a whole payload of out.size() bytes (>= kPayloadHeaderBytes).
void encode_payload(std::span<std::byte> out, std::uint32_t run_id, std::uint64_t seq,
                    std::uint64_t send_ns);

enum class ReplyKind {
  kOk,         // ours, this run, byte for byte what was sent
  kCorrupted,  // ours (magic and run id), but the length or a byte differs
  kOtherRun,   // ours, from an earlier run (a straggler of the previous rate)
  kForeign,    // not a benchmark payload at all (too short, wrong magic)
};

struct Reply {
  ReplyKind kind = ReplyKind::kForeign;
  std::uint64_t seq = 0;
  std::uint64_t send_ns = 0;
};

// Judges a received payload against what was sent (expected_bytes long).
Reply classify_reply(std::span<const std::byte> payload, std::uint32_t run_id,
                     std::size_t expected_bytes);

struct BadCounts {
  std::uint64_t missing = 0;     // recorded, sent, never answered
  std::uint64_t late = 0;        // answered only after the run's deadline
  std::uint64_t duplicated = 0;  // answered more than once (each extra counts)
  std::uint64_t corrupted = 0;   // answered with a different payload, or foreign
  std::uint64_t total() const { return missing + late + duplicated + corrupted; }
};

// Replies of one run by sequence number. Packets [first_recorded,
// first_recorded + recorded) are the measured samples: only they count
// toward bad packets (warm-up and cool-down are not recorded).
class ReplyTracker {
 public:
  ReplyTracker(std::uint64_t total_packets, std::uint64_t first_recorded, std::uint64_t recorded);

  enum class Outcome { kFirst, kDuplicate, kOutOfRange };

  // A reply for `seq`; late = it came after the run's deadline.
  Outcome on_reply(std::uint64_t seq, bool late);
  // A corrupted reply (its sequence number, when it parsed) or a foreign one.
  void on_corrupted(std::uint64_t seq, bool seq_known);

  // Whether any reply (on time, late or corrupted) came for `seq`.
  bool answered(std::uint64_t seq) const { return seq < state_.size() && state_[seq] != kNone; }

  bool recorded(std::uint64_t seq) const {
    return seq >= first_recorded_ && seq < first_recorded_ + recorded_;
  }

  // Bad packets among the recorded ones, given how many packets (from 0)
  // were actually sent: unsent packets are not missing.
  BadCounts bad(std::uint64_t sent) const;

 private:
  enum : std::uint8_t { kNone, kOnTime, kLate, kCorrupt };
  std::vector<std::uint8_t> state_;
  std::uint64_t first_recorded_;
  std::uint64_t recorded_;
  std::uint64_t duplicated_ = 0;
  std::uint64_t foreign_corrupted_ = 0;
};

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_PAYLOAD_H_
