// Host test: faults injected through the virtio-mmio device model into the
// virtio-net driver, repeated and mid-traffic (issue 7). net_test.cc has the
// single cases (one bad used entry of each kind, one config change, one
// reset, one TX stall); here they come in runs and while buffers are out,
// and afterwards no buffer may be missing from either ring.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net.h"
#include "drivers/virtio/net_test_rig.h"
#include "kernel/async/as_task.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/mem/page_allocator.h"

namespace starling::virtio {
namespace {

using testing::frame_of;
constexpr std::uint16_t kRing = 256;

// The rig net_test.cc uses (net_test_rig.h).
class NetFaultTest : public testing::NetRig {
 protected:
  // The TX ring takes a full ring of frames again (none was lost).
  void expect_tx_ring_whole() {
    auto f = frame_of(9, 60);
    std::vector<std::span<const std::byte>> spans(kRing + 10, std::span<const std::byte>(f));
    auto sent = net_.transmit(spans);
    ASSERT_TRUE(sent.ok());
    EXPECT_EQ(*sent, kRing) << "TX descriptors missing";
    device_.consume_tx();
  }
};

// Runs of bad used entries (ids out of range, lengths beyond the buffer, an
// id completed twice) between good frames: every good frame arrives intact,
// every bad entry is counted, and all buffers end up posted again.
TEST_F(NetFaultTest, RunsOfBadUsedEntriesBetweenGoodFrames) {
  ASSERT_TRUE(init().ok());
  auto& rx = *device_.queue(0);
  constexpr std::uint32_t kRounds = 200;
  std::uint64_t bad = 0;
  std::uint32_t good = 0;
  for (std::uint32_t round = 0; round < kRounds; ++round) {
    switch (round % 4) {
      case 0:
        rx.complete(static_cast<std::uint16_t>(kRing + round), 100);  // id out of range
        ++bad;
        break;
      case 1: {
        const std::uint16_t a = rx.take_avail();
        rx.complete(a, Net::kBufferBytes + 1 + round);  // longer than the buffer
        ++bad;
        break;
      }
      case 2: {
        const std::uint16_t a = rx.take_avail();
        rx.complete(a, Net::kBufferBytes * 4);  // beyond, then the same id again
        rx.complete(a, 64);
        bad += 2;
        break;
      }
      default:
        break;
    }
    ASSERT_TRUE(device_.deliver(frame_of(round, 60 + round)));
    auto frames = drain();
    ASSERT_EQ(frames.size(), 1u) << "round " << round;
    EXPECT_EQ(frames[0], frame_of(round, 60 + round)) << "round " << round;
    ++good;
  }
  EXPECT_EQ(net_.stats().rx_errors, bad);
  EXPECT_EQ(net_.stats().rx_frames, good);
  EXPECT_EQ(device_.queue(0)->pending(), kRing) << "RX buffers missing";
  expect_tx_ring_whole();
}

// DEVICE_NEEDS_RESET while TX frames are in flight (the device stopped
// completing them) and RX frames are both queued and held by the stack: the
// driver resets, the TX ring is whole again, held RX buffers stay the
// stack's until released, then every RX buffer is posted.
TEST_F(NetFaultTest, NeedsResetMidTrafficLosesNoBuffer) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  auto f = frame_of(3, 100);
  std::vector<std::span<const std::byte>> spans(100, std::span<const std::byte>(f));
  auto sent = net_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 100u);
  for (std::uint32_t i = 0; i < 10; ++i) ASSERT_TRUE(device_.deliver(frame_of(i, 80)));
  hal::RxFrame held[3];
  ASSERT_EQ(net_.receive(held), 3u);

  device_.need_reset();
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_EQ(net_.stats().resets, 1u);
  EXPECT_EQ(device_.status & kStatusNeedsReset, 0u);
  EXPECT_EQ(device_.status & kStatusDriverOk, kStatusDriverOk);
  // The frames queued before the reset are gone with it; the held ones are not.
  EXPECT_EQ(device_.queue(0)->pending(), kRing - 3);
  for (const auto& h : held) EXPECT_TRUE(net_.release(h.handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), kRing);
  // The 100 accepted but never completed TX frames are counted as lost.
  EXPECT_EQ(net_.stats().tx_drops, 100u);

  device_.consume_tx_on_notify = true;
  expect_tx_ring_whole();
  ASSERT_TRUE(device_.deliver(frame_of(42, 90)));
  auto frames = drain();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], frame_of(42, 90));
}

// The link flaps: each change is a config interrupt, wait_for_work()
// returns, the driver's link state follows and every change is counted;
// traffic works afterwards.
TEST_F(NetFaultTest, LinkFlapsAreFollowedAndCounted) {
  ASSERT_TRUE(init().ok());
  constexpr std::uint32_t kFlaps = 20;
  for (std::uint32_t i = 0; i < kFlaps; ++i) {
    device_.set_link(false);
    ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
    EXPECT_EQ(net_.link(), hal::LinkState::kDown) << "flap " << i;
    device_.set_link(true);
    ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
    EXPECT_EQ(net_.link(), hal::LinkState::kUp) << "flap " << i;
  }
  EXPECT_EQ(net_.stats().config_changes, 2u * kFlaps);
  EXPECT_EQ(net_.stats().resets, 0u);
  ASSERT_TRUE(device_.deliver(frame_of(5, 64)));
  auto frames = drain();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], frame_of(5, 64));
  EXPECT_EQ(device_.queue(0)->pending(), kRing);
  expect_tx_ring_whole();
}

}  // namespace
}  // namespace starling::virtio
