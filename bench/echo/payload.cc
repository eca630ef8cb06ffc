#include "bench/echo/payload.h"

#include <cstring>

namespace starling::bench {
namespace {

void put64(std::span<std::byte> out, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[at + i] = static_cast<std::byte>(v >> (8 * i));
}

std::uint64_t get64(std::span<const std::byte> in, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::to_integer<std::uint64_t>(in[at + i]) << (8 * i);
  return v;
}

std::byte filler(std::uint64_t seq, std::size_t offset) {
  return static_cast<std::byte>((seq * 131 + offset * 7 + (offset >> 8)) & 0xFF);
}

}  // namespace

void encode_payload(std::span<std::byte> out, std::uint32_t run_id, std::uint64_t seq,
                    std::uint64_t send_ns) {
  put64(out, 0, kPayloadMagic);
  put64(out, 8, run_id);
  put64(out, 16, seq);
  put64(out, 24, send_ns);
  for (std::size_t i = kPayloadHeaderBytes; i < out.size(); ++i) out[i] = filler(seq, i);
}

Reply classify_reply(std::span<const std::byte> payload, std::uint32_t run_id,
                     std::size_t expected_bytes) {
  Reply r;
  if (payload.size() < kPayloadHeaderBytes || get64(payload, 0) != kPayloadMagic) return r;
  const std::uint64_t id_word = get64(payload, 8);
  r.seq = get64(payload, 16);
  r.send_ns = get64(payload, 24);
  if (id_word >> 32 != 0) {
    r.kind = ReplyKind::kCorrupted;
    return r;
  }
  if (id_word != run_id) {
    r.kind = ReplyKind::kOtherRun;
    return r;
  }
  r.kind = ReplyKind::kCorrupted;
  if (payload.size() != expected_bytes) return r;
  for (std::size_t i = kPayloadHeaderBytes; i < payload.size(); ++i) {
    if (payload[i] != filler(r.seq, i)) return r;
  }
  r.kind = ReplyKind::kOk;
  return r;
}

ReplyTracker::ReplyTracker(std::uint64_t total_packets, std::uint64_t first_recorded,
                           std::uint64_t recorded)
    : state_(total_packets, kNone), first_recorded_(first_recorded), recorded_(recorded) {}

ReplyTracker::Outcome ReplyTracker::on_reply(std::uint64_t seq, bool late) {
  if (seq >= state_.size()) {
    ++foreign_corrupted_;  // a sequence number never sent: the header changed
    return Outcome::kOutOfRange;
  }
  if (state_[seq] != kNone) {
    if (recorded(seq)) ++duplicated_;
    return Outcome::kDuplicate;
  }
  state_[seq] = late ? kLate : kOnTime;
  return Outcome::kFirst;
}

void ReplyTracker::on_corrupted(std::uint64_t seq, bool seq_known) {
  if (seq_known && seq < state_.size()) {
    if (state_[seq] == kNone) {
      state_[seq] = kCorrupt;
    } else if (recorded(seq)) {
      ++duplicated_;
    }
    return;
  }
  ++foreign_corrupted_;
}

BadCounts ReplyTracker::bad(std::uint64_t sent) const {
  BadCounts b;
  const std::uint64_t end = first_recorded_ + recorded_;
  for (std::uint64_t seq = first_recorded_; seq < end && seq < state_.size(); ++seq) {
    switch (state_[seq]) {
      case kNone:
        if (seq < sent) ++b.missing;
        break;
      case kLate:
        ++b.late;
        break;
      case kCorrupt:
        ++b.corrupted;
        break;
      default:
        break;
    }
  }
  b.duplicated = duplicated_;
  b.corrupted += foreign_corrupted_;
  return b;
}

}  // namespace starling::bench
