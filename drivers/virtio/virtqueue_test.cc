#include "drivers/virtio/virtqueue.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/virtio/model/fake_device.h"

namespace starling::virtio {
namespace {

constexpr std::uint32_t kBufferBytes = 2048;

// Rings and buffers in host memory; physical address == pointer.
struct QueueFixture {
  explicit QueueFixture(std::uint16_t size, SplitQueue::Direction direction)
      : ring_memory(3 * 4096 + 64), buffers(std::size_t{size} * kBufferBytes) {
    std::byte* base = ring_memory.data();
    while (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) ++base;
    memory = SplitQueue::Memory{.descriptors = base,
                                .avail = base + 4096,
                                .used = base + 2 * 4096,
                                .buffers_cpu = buffers.data(),
                                .buffers_phys = reinterpret_cast<std::uintptr_t>(buffers.data()),
                                .buffer_bytes = kBufferBytes};
    EXPECT_TRUE(queue.init(memory, size, direction).ok());
  }
  std::vector<std::byte> ring_memory;
  std::vector<std::byte> buffers;
  SplitQueue::Memory memory;
  SplitQueue queue;
};

std::vector<std::byte> frame_of(std::uint32_t n, std::size_t length) {
  std::vector<std::byte> out(length);
  for (std::size_t i = 0; i < length; ++i) out[i] = static_cast<std::byte>((n + i) & 0xff);
  return out;
}

TEST(SplitQueueTest, RejectsBadShapes) {
  SplitQueue queue;
  std::vector<std::byte> mem(16384);
  SplitQueue::Memory m{mem.data(), mem.data() + 4096, mem.data() + 8192, mem.data() + 12288, 0, 64};
  EXPECT_FALSE(queue.init(m, 0, SplitQueue::Direction::kDeviceReads).ok());
  EXPECT_FALSE(queue.init(m, 3, SplitQueue::Direction::kDeviceReads).ok());
  EXPECT_FALSE(queue.init(m, 512, SplitQueue::Direction::kDeviceReads).ok());
  EXPECT_TRUE(queue.init(m, 4, SplitQueue::Direction::kDeviceReads).ok());
}

// A control request: a readable head chained to a writable tail, one used
// entry for the pair, both held again and the descriptors back to plain
// device-reads buffers for the next post(). Bad chains are refused.
TEST(SplitQueueTest, ChainGoesOutAsOneRequestAndComesBackWhole) {
  QueueFixture f(4, SplitQueue::Direction::kDeviceReads);
  testing::FakeQueueDevice device(f.memory, 4);
  for (int round = 0; round < 10; ++round) {
    const auto head = f.queue.take_free();
    const auto tail = f.queue.take_free();
    ASSERT_TRUE(head && tail);
    EXPECT_FALSE(f.queue.post_chain(*head, 0, *tail, 1).ok());
    EXPECT_FALSE(f.queue.post_chain(*head, 2, *head, 1).ok());
    EXPECT_FALSE(f.queue.post_chain(*head, 2, *tail, kBufferBytes + 1).ok());
    f.queue.buffer(*head)[0] = std::byte{0x11};
    f.queue.buffer(*head)[1] = std::byte{0x22};
    ASSERT_TRUE(f.queue.post_chain(*head, 2, *tail, 1).ok());
    EXPECT_FALSE(f.queue.is_held(*tail));
    EXPECT_FALSE(f.queue.put_free(*tail).ok());  // part of the request
    f.queue.publish();
    auto chain = device.take_chain();
    ASSERT_TRUE(chain.well_formed);
    EXPECT_EQ(chain.head, *head);
    EXPECT_EQ(chain.readable, (std::vector<std::byte>{std::byte{0x11}, std::byte{0x22}}));
    ASSERT_EQ(chain.writable, f.queue.buffer(*tail).data());
    EXPECT_EQ(chain.writable_len, 1u);
    *chain.writable = std::byte{0};
    device.complete(chain.head, 2);  // more than the tail holds: not trusted
    auto done = f.queue.pop_used();
    ASSERT_TRUE(done);
    EXPECT_EQ(done->id, *head);
    EXPECT_FALSE(done->len_ok);
    EXPECT_TRUE(f.queue.is_held(*head));
    EXPECT_TRUE(f.queue.is_held(*tail));
    EXPECT_FALSE(device.descriptor_writable(*tail));
    ASSERT_TRUE(f.queue.put_free(*head).ok());
    ASSERT_TRUE(f.queue.put_free(*tail).ok());
  }
  // A plain post after chains: a single readable buffer, no NEXT.
  const auto id = f.queue.take_free();
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.queue.post(*id, 3).ok());
  f.queue.publish();
  auto single = device.take_chain();
  EXPECT_EQ(single.readable.size(), 3u);
  EXPECT_EQ(single.writable, nullptr);
}

// TX: take, fill, post, publish; the device consumes; the driver reclaims.
// 20,000 frames through a 16-entry ring wrap both rings (and the 16-bit
// indices) many times; every byte arrives in order.
TEST(SplitQueueTest, TransmitWrapsManyTimesInBatches) {
  QueueFixture f(16, SplitQueue::Direction::kDeviceReads);
  testing::FakeQueueDevice device(f.memory, 16);
  std::uint32_t sent = 0, received = 0;
  constexpr std::uint32_t kFrames = 70'000;  // > 65536: the 16-bit idx wraps too
  while (received < kFrames) {
    // Batch: as many as fit, at most 7.
    for (int i = 0; i < 7 && sent < kFrames; ++i) {
      auto id = f.queue.take_free();
      if (!id) break;
      auto bytes = frame_of(sent, 60 + sent % 1400);
      std::memcpy(f.queue.buffer(*id).data(), bytes.data(), bytes.size());
      ASSERT_TRUE(f.queue.post(*id, static_cast<std::uint32_t>(bytes.size())).ok());
      ++sent;
    }
    f.queue.publish();
    // The device takes a varying number per round.
    for (std::uint16_t n = device.pending() > 5 ? 5 : device.pending(); n > 0; --n) {
      auto got = device.consume_tx();
      ASSERT_EQ(got, frame_of(received, 60 + received % 1400)) << "frame " << received;
      ++received;
    }
    while (auto done = f.queue.pop_used()) ASSERT_TRUE(f.queue.put_free(done->id).ok());
  }
  EXPECT_EQ(f.queue.errors(), 0u);
  EXPECT_EQ(f.queue.free_count(), 16);
}

// post() with an offset: the device reads from that many bytes into the
// buffer (what the device sees is exactly the bytes written there), and an
// offset + length past the buffer's end is refused.
TEST(SplitQueueTest, PostAtAnOffsetIntoTheBuffer) {
  QueueFixture f(4, SplitQueue::Direction::kDeviceReads);
  testing::FakeQueueDevice device(f.memory, 4);
  for (std::uint32_t offset = 0; offset < 8; ++offset) {
    auto id = f.queue.take_free();
    ASSERT_TRUE(id.has_value());
    const auto bytes = frame_of(offset, 1514);
    std::memcpy(f.queue.buffer(*id).data() + offset, bytes.data(), bytes.size());
    EXPECT_FALSE(f.queue.post(*id, kBufferBytes - offset + 1, offset).ok());
    EXPECT_FALSE(f.queue.post(*id, 1, kBufferBytes).ok());
    ASSERT_TRUE(f.queue.post(*id, 1514, offset).ok());
    f.queue.publish();
    EXPECT_EQ(device.consume_tx(), bytes) << "offset " << offset;
    auto done = f.queue.pop_used();
    ASSERT_TRUE(done.has_value());
    ASSERT_TRUE(f.queue.put_free(done->id).ok());
  }
  // The whole buffer at offset 0 is still allowed.
  auto id = f.queue.take_free();
  ASSERT_TRUE(id.has_value());
  EXPECT_TRUE(f.queue.post(*id, kBufferBytes).ok());
}

// A full ring is a value: no free id, and post() of an id not held fails.
TEST(SplitQueueTest, FullRingGivesNoId) {
  QueueFixture f(8, SplitQueue::Direction::kDeviceReads);
  testing::FakeQueueDevice device(f.memory, 8);
  for (int i = 0; i < 8; ++i) {
    auto id = f.queue.take_free();
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(f.queue.post(*id, 64).ok());
  }
  f.queue.publish();
  EXPECT_FALSE(f.queue.take_free().has_value());
  EXPECT_FALSE(f.queue.post(0, 64).ok());  // with the device, not held
  EXPECT_EQ(f.queue.with_device(), 8);
  (void)device.consume_tx();
  auto done = f.queue.pop_used();
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(f.queue.put_free(done->id).ok());
  EXPECT_TRUE(f.queue.take_free().has_value());
}

// RX: all buffers posted writable; frames come back with their lengths;
// re-posting keeps the device supplied across 50,000 frames.
TEST(SplitQueueTest, ReceiveRepostsAcrossWraps) {
  QueueFixture f(32, SplitQueue::Direction::kDeviceWrites);
  testing::FakeQueueDevice device(f.memory, 32);
  while (auto id = f.queue.take_free()) ASSERT_TRUE(f.queue.post(*id, kBufferBytes).ok());
  f.queue.publish();
  EXPECT_TRUE(device.descriptor_writable(0));
  std::uint32_t delivered = 0, got = 0;
  while (got < 50'000) {
    for (std::uint16_t n = device.pending() > 9 ? 9 : device.pending(); n > 0; --n) {
      device.deliver_rx(frame_of(delivered, 64 + delivered % 1000));
      ++delivered;
    }
    while (auto done = f.queue.pop_used()) {
      ASSERT_TRUE(done->len_ok);
      const auto want = frame_of(got, 64 + got % 1000);
      ASSERT_EQ(done->len, want.size());
      ASSERT_EQ(0, std::memcmp(f.queue.buffer(done->id).data(), want.data(), want.size()));
      ++got;
      ASSERT_TRUE(f.queue.post(done->id, kBufferBytes).ok());
    }
    f.queue.publish();
  }
  EXPECT_EQ(f.queue.errors(), 0u);
  EXPECT_EQ(f.queue.with_device(), 32);
}

// A device that lies: ids out of range, ids never posted, an id returned
// twice, a length beyond the buffer. Each is counted; only the real
// completion of a posted id is accepted, and a bad length is flagged so the
// driver re-posts the buffer without reading it.
TEST(SplitQueueTest, BadUsedEntriesAreCountedNotTrusted) {
  QueueFixture f(8, SplitQueue::Direction::kDeviceWrites);
  testing::FakeQueueDevice device(f.memory, 8);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(f.queue.post(*f.queue.take_free(), kBufferBytes).ok());
  f.queue.publish();
  const std::uint16_t a = device.take_avail();
  const std::uint16_t b = device.take_avail();
  device.complete(8, 100);      // out of range
  device.complete(60000, 100);  // far out of range
  const std::uint16_t never_posted = *f.queue.take_free();
  device.complete(never_posted, 100);    // held by the driver, not the device
  device.complete(a, 100);               // good
  device.complete(a, 100);               // twice
  device.complete(b, kBufferBytes + 1);  // longer than the buffer

  auto first = f.queue.pop_used();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->id, a);
  EXPECT_EQ(first->len, 100u);
  EXPECT_TRUE(first->len_ok);
  EXPECT_EQ(f.queue.errors(), 3u);
  auto second = f.queue.pop_used();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->id, b);
  EXPECT_FALSE(second->len_ok);
  EXPECT_EQ(second->len, 0u);
  EXPECT_EQ(f.queue.errors(), 5u);
  EXPECT_FALSE(f.queue.pop_used().has_value());
  // b is held again and can be re-posted; until published it is not the
  // device's to return.
  EXPECT_TRUE(f.queue.post(b, kBufferBytes).ok());
  EXPECT_EQ(f.queue.with_device(), 2);
  device.complete(b, 100);
  EXPECT_FALSE(f.queue.pop_used().has_value());
  EXPECT_EQ(f.queue.errors(), 6u);
  f.queue.publish();
  EXPECT_EQ(f.queue.with_device(), 3);
}

// Suppression both ways: the driver's NO_INTERRUPT keeps the device quiet,
// enable_interrupts() reports work that slipped in; the device's NO_NOTIFY
// makes publish() say "don't ring".
TEST(SplitQueueTest, NotificationSuppressionIsHonoured) {
  QueueFixture f(8, SplitQueue::Direction::kDeviceWrites);
  testing::FakeQueueDevice device(f.memory, 8);
  while (auto id = f.queue.take_free()) ASSERT_TRUE(f.queue.post(*id, kBufferBytes).ok());
  EXPECT_TRUE(f.queue.publish());  // device wants notifies by default
  device.set_no_notify(true);
  EXPECT_FALSE(f.queue.publish());
  device.set_no_notify(false);

  f.queue.disable_interrupts();
  device.deliver_rx(frame_of(1, 60));
  EXPECT_EQ(device.interrupts(), 0u);
  EXPECT_TRUE(f.queue.enable_interrupts());  // work arrived while suppressed: don't sleep
  while (f.queue.pop_used()) {
  }
  EXPECT_FALSE(f.queue.enable_interrupts());
  device.deliver_rx(frame_of(2, 60));
  EXPECT_EQ(device.interrupts(), 1u);
  EXPECT_TRUE(f.queue.has_used());
}

// A re-init (device reset) frees what the device had and keeps what the
// stack holds held.
TEST(SplitQueueTest, ReinitKeepsHeldIds) {
  QueueFixture f(4, SplitQueue::Direction::kDeviceWrites);
  const std::uint16_t held = *f.queue.take_free();
  const std::uint16_t posted = *f.queue.take_free();
  ASSERT_TRUE(f.queue.post(posted, kBufferBytes).ok());
  ASSERT_TRUE(f.queue.init(f.memory, 4, SplitQueue::Direction::kDeviceWrites).ok());
  EXPECT_TRUE(f.queue.is_held(held));
  EXPECT_FALSE(f.queue.is_held(posted));
  EXPECT_EQ(f.queue.free_count(), 3);
  EXPECT_EQ(f.queue.with_device(), 0);
}

// The device can write the descriptor table: a length it claims is checked
// against what the driver itself posted, not against the (rewritten) table.
TEST(SplitQueueTest, UsedLengthIsCheckedAgainstThePostedLength) {
  QueueFixture f(4, SplitQueue::Direction::kDeviceWrites);
  testing::FakeQueueDevice device(f.memory, 4);
  auto id = f.queue.take_free();
  ASSERT_TRUE(id.has_value());
  ASSERT_TRUE(f.queue.post(*id, 100).ok());
  (void)f.queue.publish();
  const std::uint16_t taken = device.take_avail();
  ASSERT_EQ(taken, *id);
  // The device rewrites the descriptor's len, then claims 1000 bytes.
  reinterpret_cast<Descriptor*>(f.memory.descriptors)[taken].len = kBufferBytes;
  device.complete(taken, 1000);
  auto done = f.queue.pop_used();
  ASSERT_TRUE(done.has_value());
  EXPECT_FALSE(done->len_ok);
  EXPECT_EQ(done->len, 0u);
  EXPECT_EQ(f.queue.errors(), 1u);
  // Within what was posted is fine.
  ASSERT_TRUE(f.queue.post(done->id, 100).ok());
  (void)f.queue.publish();
  device.complete(device.take_avail(), 100);
  done = f.queue.pop_used();
  ASSERT_TRUE(done.has_value());
  EXPECT_TRUE(done->len_ok);
  EXPECT_EQ(done->len, 100u);
}

}  // namespace
}  // namespace starling::virtio
