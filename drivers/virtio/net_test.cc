// Host test: the virtio-net driver against a virtio-mmio device model
// (fake_net_device.h), with rings and buffers from a page allocator over
// host memory, the interrupt through a PLIC on plain memory and irq::, and
// the coroutine runtime on the host board. Runs under ASan and UBSan.

#include "drivers/virtio/net.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net_test_rig.h"
#include "kernel/async/as_task.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "kernel/mem/page_allocator.h"

namespace starling::virtio {
namespace {

using testing::frame_of;

using NetTest = testing::NetRig;

TEST_F(NetTest, NegotiatesModernFeaturesAndPostsEveryRxBuffer) {
  ASSERT_TRUE(init().ok());
  // MRG_RXBUF is offered but not implemented: not taken.
  EXPECT_EQ(device_.driver_features, kFeatureVersion1 | Net::kFeatureCsum | Net::kFeatureGuestCsum |
                                         Net::kFeatureMac | Net::kFeatureStatus);
  EXPECT_EQ(device_.status,
            kStatusAcknowledge | kStatusDriver | kStatusFeaturesOk | kStatusDriverOk);
  EXPECT_EQ(net_.rx_queue_size(), 256);
  EXPECT_EQ(device_.queue(0)->pending(), 256);
  EXPECT_EQ(device_.notifies[0], 1u);
  EXPECT_EQ(net_.mac(), (hal::MacAddress{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}}));
  EXPECT_EQ(net_.link(), hal::LinkState::kUp);
}

TEST_F(NetTest, SmallerQueueNumMaxIsHonoured) {
  device_.queue_num_max = 100;  // not a power of two: the driver uses 64
  ASSERT_TRUE(init().ok());
  EXPECT_EQ(net_.rx_queue_size(), 64);
  EXPECT_EQ(device_.queue(0)->pending(), 64);
}

// Legacy (version 1): one feature word, no FEATURES_OK, rings by page
// number in the legacy layout, a 10-byte header. Frames flow both ways.
TEST_F(NetTest, LegacyDeviceWorks) {
  device_.version = kVersionLegacy;
  ASSERT_TRUE(init().ok());
  EXPECT_TRUE(net_.legacy());
  EXPECT_EQ(device_.driver_features,
            Net::kFeatureCsum | Net::kFeatureGuestCsum | Net::kFeatureMac | Net::kFeatureStatus);
  EXPECT_EQ(device_.status, kStatusAcknowledge | kStatusDriver | kStatusDriverOk);
  EXPECT_EQ(device_.guest_page_size, 4096u);
  EXPECT_EQ(device_.header_bytes(), 10u);
  EXPECT_EQ(device_.queue(0)->pending(), 256);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(device_.deliver(frame_of(i, 60 + i)));
    auto got = drain();
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0], frame_of(i, 60 + i));
    auto f = frame_of(i, 42 + i);
    std::span<const std::byte> one[] = {f};
    ASSERT_TRUE(net_.transmit(one).ok());
    ASSERT_EQ(device_.transmitted.back(), f);
  }
  EXPECT_EQ(net_.stats().rx_errors + net_.stats().tx_errors, 0u);
}

TEST_F(NetTest, NoVersion1MeansFailed) {
  device_.offered &= ~kFeatureVersion1;
  auto r = init();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kUnsupported);
  EXPECT_NE(device_.status & kStatusFailed, 0u);
}

TEST_F(NetTest, RefusedFeaturesOkMeansFailed) {
  device_.accept_features = false;
  auto r = init();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kDeviceError);
  EXPECT_NE(device_.status & kStatusFailed, 0u);
  EXPECT_EQ(device_.status & kStatusDriverOk, 0u);
}

// 20,000 frames each way: ring indices wrap, every frame arrives intact,
// the header on TX is all zero, and the counters add up.
TEST_F(NetTest, ManyFramesBothWays) {
  ASSERT_TRUE(init().ok());
  std::uint32_t delivered = 0, received = 0;
  std::uint64_t rx_bytes = 0, tx_bytes = 0;
  for (std::uint32_t round = 0; round < 2000; ++round) {
    for (int i = 0; i < 10; ++i, ++delivered) {
      auto f = frame_of(delivered, 60 + delivered % 1400);
      rx_bytes += f.size();
      ASSERT_TRUE(device_.deliver(f));
    }
    for (auto& f : drain()) {
      ASSERT_EQ(f, frame_of(received, 60 + received % 1400)) << received;
      ++received;
    }
    std::vector<std::vector<std::byte>> out;
    std::vector<std::span<const std::byte>> spans;
    for (int i = 0; i < 10; ++i) out.push_back(frame_of(round * 10 + i, 42 + (round + i) % 1470));
    for (auto& f : out) {
      spans.emplace_back(f);
      tx_bytes += f.size();
    }
    auto sent = net_.transmit(spans);
    ASSERT_TRUE(sent.ok());
    ASSERT_EQ(*sent, 10u);
  }
  ASSERT_EQ(received, 20'000u);
  ASSERT_EQ(device_.transmitted.size(), 20'000u);
  for (std::uint32_t i = 0; i < 20'000; i += 997) {
    EXPECT_EQ(device_.transmitted[i], frame_of(i, 42 + (i / 10 + i % 10) % 1470));
  }
  for (const auto& h : device_.tx_headers) EXPECT_EQ(h, (std::array<std::byte, 12>{}));
  const auto& s = net_.stats();
  EXPECT_EQ(s.rx_frames, 20'000u);
  EXPECT_EQ(s.rx_bytes, rx_bytes);
  EXPECT_EQ(s.tx_frames, 20'000u);
  EXPECT_EQ(s.tx_bytes, tx_bytes);
  EXPECT_EQ(s.rx_errors + s.tx_errors + s.rx_drops + s.tx_drops, 0u);
  EXPECT_EQ(device_.rx_dropped_no_buffer, 0u);
  // While the driver drains, RX interrupts stay suppressed; TX never asks.
  EXPECT_EQ(device_.raised, 0u);
}

// A stack that holds buffers starves the device (frames dropped there), and
// releasing them restores it: zero-copy RX's contract.
TEST_F(NetTest, HeldBuffersAreNotReposted) {
  ASSERT_TRUE(init().ok());
  for (int i = 0; i < 256; ++i) ASSERT_TRUE(device_.deliver(frame_of(i, 100)));
  EXPECT_FALSE(device_.deliver(frame_of(999, 100)));
  std::vector<hal::RxFrame> held(256);
  ASSERT_EQ(net_.receive(held), 256u);
  EXPECT_EQ(device_.queue(0)->pending(), 0);
  std::vector<hal::RxHandle> handles;
  for (auto& f : held) handles.push_back(f.handle);
  EXPECT_FALSE(net_.release(hal::RxHandle{5000}).ok());
  ASSERT_TRUE(net_.release(handles).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 256);
  EXPECT_FALSE(net_.release(handles[0]).ok());  // already given back
}

// The ring drained dry (the stack holds every buffer, frames arriving are
// lost) and then given back one handle at a time, as the RX pool's free
// function does: the first release re-posts and notifies at once, and every
// frame after that is received (issue 12: recovery from a dry ring).
TEST_F(NetTest, DrainedRingRefillsAndNotifiesOnEachRelease) {
  ASSERT_TRUE(init().ok());
  for (int i = 0; i < 256; ++i) ASSERT_TRUE(device_.deliver(frame_of(i, 100)));
  std::vector<hal::RxFrame> held(256);
  ASSERT_EQ(net_.receive(held), 256u);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(device_.deliver(frame_of(500 + i, 100)));
  EXPECT_EQ(device_.rx_dropped_no_buffer, 10u);
  const std::uint64_t notifies = device_.notifies[0];
  ASSERT_TRUE(net_.release(held[0].handle).ok());
  EXPECT_EQ(device_.notifies[0], notifies + 1);  // told at once, not at the next receive()
  EXPECT_TRUE(device_.deliver(frame_of(600, 100)));
  for (std::size_t i = 1; i < held.size(); ++i) ASSERT_TRUE(net_.release(held[i].handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 255);
  for (int i = 0; i < 255; ++i) ASSERT_TRUE(device_.deliver(frame_of(700 + i, 100)));
  std::vector<hal::RxFrame> again(256);
  ASSERT_EQ(net_.receive(again), 256u);
  const auto first = frame_of(600, 100);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), again[0].data.begin()));
  for (auto& f : again) ASSERT_TRUE(net_.release(f.handle).ok());
}

// A device whose config generation changes on every read cannot keep the
// driver re-reading forever: init completes, and the give-up is counted.
TEST_F(NetTest, RestlessConfigGenerationIsBounded) {
  device_.restless_config = true;
  ASSERT_TRUE(init().ok());
  EXPECT_EQ(net_.stats().config_unsettled, 1u);
  EXPECT_EQ(net_.mac().bytes, device_.mac);
}

// TX backpressure: with the device not consuming, the ring fills; transmit
// then says kBusy (counted) and wait_for_work() completes once the device
// catches up and interrupts.
TEST_F(NetTest, FullTxRingIsBusyUntilTheDeviceCatchesUp) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  auto f = frame_of(1, 60);
  std::vector<std::span<const std::byte>> spans(300, std::span<const std::byte>(f));
  auto sent = net_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 256u);
  auto busy = net_.transmit(spans);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error(), Error::kBusy);
  EXPECT_EQ(net_.stats().tx_busy, 1u);

  auto scenario = [&]() -> async::Task<void> {
    async::Scope scope;
    (void)scope.spawn([&]() -> async::Task<void> {
      auto r = co_await net_.wait_for_work();  // sleeps: nothing to do yet
      if (!r.ok()) co_return Unexpected(r.error());
      co_return {};
    }());
    (void)scope.spawn([&]() -> async::Task<void> {
      co_await async::sleep_for(async::kMillisecond);
      device_.consume_tx();  // completes 256, raises the TX interrupt
      co_return {};
    }());
    co_return co_await scope.join();
  };
  ASSERT_TRUE(executor_.block_on(scenario()).ok());
  EXPECT_GE(net_.stats().interrupts, 1u);
  EXPECT_EQ(device_.raised, 1u);
  EXPECT_EQ(device_.interrupt_status(), 0u);  // acknowledged
  sent = net_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 256u);
}

// A full TX ring whose completions sit on the used ring: wait_for_work()
// reports the room once and then sleeps. (It used to return at once on every
// call, without reclaiming, and the netif's loop spun on it.)
TEST_F(NetTest, CompletedFullTxRingIsReclaimedNotSpunOn) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  auto f = frame_of(1, 60);
  std::vector<std::span<const std::byte>> spans(256, std::span<const std::byte>(f));
  ASSERT_EQ(*net_.transmit(spans), 256u);
  device_.consume_tx();  // all 256 completed, nothing reclaimed yet
  auto scenario = [&]() -> async::Task<void> {
    auto first = co_await async::with_timeout(net_.wait_for_work(), 5 * async::kMillisecond);
    if (!first.ok()) co_return Unexpected(first.error());  // the room is news: at once
    auto second = co_await async::with_timeout(net_.wait_for_work(), 5 * async::kMillisecond);
    if (second.ok()) co_return Unexpected(Error::kBusy);  // nothing new: must sleep
    if (second.error() != Error::kTimedOut) co_return Unexpected(second.error());
    co_return {};
  };
  auto result = executor_.block_on(scenario());
  ASSERT_TRUE(result.ok()) << error_name(result.error());
  auto again = net_.transmit(spans);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 256u);
}

// Gather TX: one frame from fragments of every shape (empty ones too), each
// copied straight behind the zeroed header; what the device reads is the
// fragments back to back, byte for byte, for both header sizes.
void gather_frames_back_to_back(Net& net, testing::FakeNetDevice& device, std::uint32_t version) {
  {
    std::uint64_t bytes = 0;
    for (std::uint32_t n = 1; n <= 24; ++n) {
      const auto whole = frame_of(n, 14 + 37 * n);  // up to 902 bytes
      // n fragments of uneven sizes, with an empty one after every third.
      std::vector<hal::TxFragment> fragments;
      std::size_t at = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::size_t len = i + 1 == n ? whole.size() - at : (whole.size() / n) + (i % 3) - 1;
        fragments.emplace_back(whole.data() + at, len);
        at += len;
        if (i % 3 == 2) fragments.emplace_back();
      }
      ASSERT_EQ(at, whole.size());
      ASSERT_TRUE(net.transmit_gather(fragments).ok()) << n;
      ASSERT_EQ(device.transmitted.back(), whole) << n;
      ASSERT_EQ(device.tx_headers.back(), (std::array<std::byte, 12>{}));
      bytes += whole.size();
    }
    EXPECT_EQ(device.transmitted.size(), 24u);
    EXPECT_EQ(device.header_bytes(), version == kVersionLegacy ? 10u : 12u);
    EXPECT_EQ(net.stats().tx_frames, 24u);
    EXPECT_EQ(net.stats().tx_bytes, bytes);
    EXPECT_EQ(net.stats().tx_errors, 0u);
    // A maximum-size frame in single bytes' worth of ragged pieces.
    const auto max = frame_of(99, hal::kMaxFrameBytes);
    const hal::TxFragment pieces[] = {std::span(max).first(1), std::span(max).subspan(1, 1000),
                                      std::span(max).subspan(1001)};
    ASSERT_TRUE(net.transmit_gather(pieces).ok());
    EXPECT_EQ(device.transmitted.back(), max);
  }
}

TEST_F(NetTest, TransmitGatherSendsTheFragmentsBackToBack) {
  ASSERT_TRUE(init().ok());
  gather_frames_back_to_back(net_, device_, kVersionModern);
}

TEST_F(NetTest, TransmitGatherSendsTheFragmentsBackToBackLegacy) {
  device_.version = kVersionLegacy;
  ASSERT_TRUE(init().ok());
  gather_frames_back_to_back(net_, device_, kVersionLegacy);
}

// A full TX ring: transmit_gather() says kBusy (counted) having written
// nothing at all into the rings or DMA buffers, posted nothing and rung no
// doorbell; once the device catches up the same call goes through.
TEST_F(NetTest, TransmitGatherOnAFullRingIsBusyAndWritesNothing) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  const auto f = frame_of(1, 60);
  std::vector<std::span<const std::byte>> spans(256, std::span<const std::byte>(f));
  auto sent = net_.transmit(spans);
  ASSERT_TRUE(sent.ok());
  ASSERT_EQ(*sent, 256u);
  const auto stats = net_.stats();
  const auto notifies = device_.notifies[1];
  const std::vector<std::byte> memory(pages_memory_, pages_memory_ + kPagesBytes);

  const auto g = frame_of(2, 200);
  const hal::TxFragment fragments[] = {std::span(g).first(14), std::span(g).subspan(14)};
  auto busy = net_.transmit_gather(fragments);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error(), Error::kBusy);
  EXPECT_EQ(net_.stats().tx_busy, stats.tx_busy + 1);
  EXPECT_EQ(net_.stats().tx_frames, stats.tx_frames);
  EXPECT_EQ(net_.stats().tx_bytes, stats.tx_bytes);
  EXPECT_EQ(device_.queue(1)->pending(), 256);
  EXPECT_EQ(device_.notifies[1], notifies);
  EXPECT_EQ(std::memcmp(memory.data(), pages_memory_, kPagesBytes), 0);  // not a byte half-written

  device_.consume_tx();
  ASSERT_EQ(device_.transmitted.size(), 256u);
  for (const auto& t : device_.transmitted) ASSERT_EQ(t, f);
  ASSERT_TRUE(net_.transmit_gather(fragments).ok());
  device_.consume_tx();
  ASSERT_EQ(device_.transmitted.size(), 257u);
  EXPECT_EQ(device_.transmitted.back(), g);
}

TEST_F(NetTest, TransmitGatherRejectsBadFramesBeforeTakingABuffer) {
  ASSERT_TRUE(init().ok());
  const std::vector<std::byte> big(hal::kMaxFrameBytes);
  const std::vector<std::byte> one(1);
  const hal::TxFragment too_long[] = {big, one};  // 1519 in all
  auto r = net_.transmit_gather(too_long);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kInvalidArgument);
  const hal::TxFragment empties[] = {hal::TxFragment(), hal::TxFragment()};
  r = net_.transmit_gather(empties);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kInvalidArgument);
  EXPECT_FALSE(net_.transmit_gather({}).ok());
  EXPECT_TRUE(device_.transmitted.empty());
  EXPECT_EQ(device_.notifies[1], 0u);
  EXPECT_EQ(net_.stats().tx_frames, 0u);
  const hal::TxFragment exact[] = {std::span(big).first(1000), std::span(big).subspan(1000)};
  EXPECT_TRUE(net_.transmit_gather(exact).ok());
  EXPECT_EQ(device_.transmitted.size(), 1u);
}

// The device lies on the RX used ring: ids out of range or not posted and
// lengths beyond the buffer are counted as errors, the buffers re-posted,
// and no bogus frame reaches the stack.
TEST_F(NetTest, BadUsedEntriesAreCountedAndBuffersReposted) {
  ASSERT_TRUE(init().ok());
  auto& rx = *device_.queue(0);
  const std::uint16_t a = rx.take_avail();
  rx.complete(300, 100);                    // out of range
  rx.complete(a, Net::kBufferBytes + 100);  // beyond the buffer
  rx.complete(a, 100);                      // a second time
  ASSERT_TRUE(device_.deliver(frame_of(7, 80)));
  rx.complete(1000, 4);
  const std::uint16_t runt = rx.take_avail();
  rx.complete(runt, 12 + 10);  // shorter than an Ethernet header
  auto frames = drain();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], frame_of(7, 80));
  // id 300; a's length; a again (re-posted, not yet published: not the
  // device's to return); id 1000.
  EXPECT_EQ(net_.stats().rx_errors, 4u);
  EXPECT_EQ(net_.stats().rx_drops, 1u);
  EXPECT_EQ(net_.stats().rx_frames, 1u);
  // Every buffer is back with the device.
  EXPECT_EQ(device_.queue(0)->pending(), 256);
}

// Config change: the link goes down, wait_for_work() returns and the driver
// has re-read the status. Device needs reset: the driver resets and
// re-initialises; a buffer the stack held stays held and can be released.
// Status is read for DEVICE_NEEDS_RESET only after a configuration-change
// interrupt (the device raises one with it): never on a frame's wake-up.
// InterruptStatus is read once per interrupt, in the trap that acknowledges
// it (on_interrupt), and not again by the task it wakes.
TEST_F(NetTest, FrameWakeUpReadsNoStatus) {
  ASSERT_TRUE(init().ok());
  const std::uint64_t before = device_.status_reads;
  const std::uint64_t interrupts_before = device_.raised;
  const std::uint64_t causes_before = device_.interrupt_status_reads;
  ASSERT_TRUE(device_.deliver(frame_of(1, 60)));
  // Acknowledged by the trap itself, before any task ran.
  EXPECT_EQ(device_.interrupt_status(), 0u);
  EXPECT_EQ(device_.interrupt_status_reads - causes_before, device_.raised - interrupts_before);
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  hal::RxFrame held[1];
  ASSERT_EQ(net_.receive(held), 1u);
  EXPECT_EQ(device_.status_reads, before);
  EXPECT_EQ(device_.interrupt_status_reads - causes_before, device_.raised - interrupts_before);
  device_.set_link(false);  // a configuration change: Status looked at once
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_EQ(device_.status_reads, before + 1);
}

TEST_F(NetTest, ConfigChangeAndNeedsReset) {
  ASSERT_TRUE(init().ok());
  ASSERT_TRUE(device_.deliver(frame_of(1, 60)));
  hal::RxFrame held[1];
  ASSERT_EQ(net_.receive(held), 1u);

  device_.set_link(false);
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_EQ(net_.link(), hal::LinkState::kDown);
  EXPECT_EQ(net_.stats().config_changes, 1u);

  device_.need_reset();
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_EQ(net_.stats().resets, 1u);
  EXPECT_EQ(device_.status & kStatusDriverOk, kStatusDriverOk);
  EXPECT_EQ(device_.status & kStatusNeedsReset, 0u);
  EXPECT_EQ(device_.queue(0)->pending(), 255);  // all but the held one
  ASSERT_TRUE(net_.release(held[0].handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 256);
  ASSERT_TRUE(device_.deliver(frame_of(2, 70)));
  auto frames = drain();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], frame_of(2, 70));
}

// wait_for_work() with a timeout and nothing arriving: cancelled cleanly.
TEST_F(NetTest, WaitTimesOutWhenIdle) {
  ASSERT_TRUE(init().ok());
  auto r = executor_.block_on([&]() -> async::Task<void> {
    auto w = co_await async::with_timeout(net_.wait_for_work(), 2 * async::kMillisecond);
    if (!w.ok()) co_return Unexpected(w.error());
    co_return {};
  }());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kTimedOut);
}

}  // namespace
}  // namespace starling::virtio
