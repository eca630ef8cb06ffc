#include "bench/echo/payload.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling::bench {
namespace {

std::vector<std::byte> make(std::uint32_t run, std::uint64_t seq, std::size_t size = 1472) {
  std::vector<std::byte> p(size);
  encode_payload(p, run, seq, 123456789);
  return p;
}

TEST(Payload, RoundTrip) {
  const auto p = make(7, 42);
  const Reply r = classify_reply(p, 7, p.size());
  EXPECT_EQ(r.kind, ReplyKind::kOk);
  EXPECT_EQ(r.seq, 42u);
  EXPECT_EQ(r.send_ns, 123456789u);
}

TEST(Payload, AnyChangedByteIsCorrupted) {
  const auto good = make(7, 42);
  for (std::size_t at : {std::size_t{32}, std::size_t{700}, good.size() - 1}) {
    auto p = good;
    p[at] ^= std::byte{0x01};
    EXPECT_EQ(classify_reply(p, 7, p.size()).kind, ReplyKind::kCorrupted) << at;
  }
}

TEST(Payload, FillerDependsOnSequence) {
  // Another packet's body under this packet's header is corrupted.
  auto a = make(7, 1);
  const auto b = make(7, 2);
  std::copy(b.begin() + kPayloadHeaderBytes, b.end(), a.begin() + kPayloadHeaderBytes);
  EXPECT_EQ(classify_reply(a, 7, a.size()).kind, ReplyKind::kCorrupted);
}

TEST(Payload, WrongLengthIsCorrupted) {
  auto p = make(7, 3);
  p.pop_back();
  EXPECT_EQ(classify_reply(p, 7, 1472).kind, ReplyKind::kCorrupted);
  auto longer = make(7, 3, 1473);
  EXPECT_EQ(classify_reply(longer, 7, 1472).kind, ReplyKind::kCorrupted);
}

TEST(Payload, OtherRunAndForeign) {
  const auto p = make(6, 3);
  EXPECT_EQ(classify_reply(p, 7, p.size()).kind, ReplyKind::kOtherRun);
  std::vector<std::byte> text(40, std::byte{'x'});
  EXPECT_EQ(classify_reply(text, 7, 1472).kind, ReplyKind::kForeign);
  EXPECT_EQ(classify_reply(std::span(p).first(31), 7, 1472).kind, ReplyKind::kForeign);
}

TEST(ReplyTracker, CountsEachKindOfBadPacketOnlyInTheRecordedWindow) {
  // 10 packets: 0-1 warm-up, 2-7 recorded, 8-9 cool-down.
  ReplyTracker t(10, 2, 6);
  EXPECT_EQ(t.on_reply(0, false), ReplyTracker::Outcome::kFirst);      // warm-up
  EXPECT_EQ(t.on_reply(0, false), ReplyTracker::Outcome::kDuplicate);  // not recorded: free
  EXPECT_EQ(t.on_reply(2, false), ReplyTracker::Outcome::kFirst);
  EXPECT_EQ(t.on_reply(2, false), ReplyTracker::Outcome::kDuplicate);  // +1 duplicated
  EXPECT_EQ(t.on_reply(3, true), ReplyTracker::Outcome::kFirst);       // +1 late
  t.on_corrupted(4, true);                                             // +1 corrupted
  EXPECT_EQ(t.on_reply(5, false), ReplyTracker::Outcome::kFirst);
  // 6 and 7 never answered: +2 missing. 9: cool-down, missing but free.
  EXPECT_EQ(t.on_reply(8, false), ReplyTracker::Outcome::kFirst);
  const BadCounts b = t.bad(10);
  EXPECT_EQ(b.missing, 2u);
  EXPECT_EQ(b.late, 1u);
  EXPECT_EQ(b.duplicated, 1u);
  EXPECT_EQ(b.corrupted, 1u);
  EXPECT_EQ(b.total(), 5u);
}

TEST(ReplyTracker, UnsentPacketsAreNotMissing) {
  ReplyTracker t(10, 2, 6);
  t.on_reply(2, false);
  EXPECT_EQ(t.bad(4).missing, 1u);  // only 0..3 went out: 3 is missing
}

TEST(ReplyTracker, AnsweredMeansAnyReply) {
  ReplyTracker t(4, 0, 4);
  t.on_reply(0, false);
  t.on_reply(1, true);
  t.on_corrupted(2, true);
  EXPECT_TRUE(t.answered(0));
  EXPECT_TRUE(t.answered(1));
  EXPECT_TRUE(t.answered(2));
  EXPECT_FALSE(t.answered(3));
  EXPECT_FALSE(t.answered(4));  // never sent
}

TEST(ReplyTracker, ForeignAndOutOfRangeRepliesAreCorrupted) {
  ReplyTracker t(4, 0, 4);
  for (std::uint64_t s = 0; s < 4; ++s) t.on_reply(s, false);
  EXPECT_EQ(t.on_reply(99, false), ReplyTracker::Outcome::kOutOfRange);
  t.on_corrupted(0, false);
  const BadCounts b = t.bad(4);
  EXPECT_EQ(b.corrupted, 2u);
  EXPECT_EQ(b.missing, 0u);
}

}  // namespace
}  // namespace starling::bench
