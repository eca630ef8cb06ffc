#ifndef STARLING_KERNEL_HAL_NIC_CONFORMANCE_H_
#define STARLING_KERNEL_HAL_NIC_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"

// Test-only: kernel/hal/nic.h's contract as one typed GoogleTest suite, run
// against every hal::Nic (virtio-net over its device model, the DWMAC over
// its model, net/netif's FakeNic), so a new driver gets the contract's tests
// by instantiating it:
//
//   using MyConformance = hal::testing::NicConformance<MyRig>;
//   INSTANTIATE_TYPED_TEST_SUITE_P(MyNic, NicConformance, MyRig);
//
// `Rig` is a ::testing::Test with the driver, its device (model) and an
// executor, and these members, which the suite calls through `this`:
//
//   Result<void> start_nic();     init the driver against a fresh device
//   Nic& nic();                   the driver
//   bool wire_in(std::span<const std::byte> frame);
//                                 the device receives `frame` from the wire;
//                                 false if it had no buffer for it
//   std::vector<std::vector<std::byte>> wire_out();
//                                 the frames the device sent since the last
//                                 call, in order, as they left
//   void stall_tx(bool stalled);  stalled: the device takes no more TX
//                                 frames (the ring fills); unstalled: it
//                                 sends what waits and signals completion
//   Result<void> run(async::Task<void> task);  on the rig's executor
//
// What is specific to one device (descriptor layouts, resets, offloads,
// link handling) stays in that driver's own tests.
namespace starling::hal::testing {

// A frame of `length` bytes to `to` (so a filtering MAC takes it) from a
// locally administered address, EtherType 0x88B5 (local experimental), whose
// payload encodes `n`.
inline std::vector<std::byte> conformance_frame(const MacAddress& to, std::uint32_t n,
                                                std::size_t length) {
  std::vector<std::byte> out(length);
  for (std::size_t i = 0; i < 6; ++i) out[i] = static_cast<std::byte>(to.bytes[i]);
  const std::uint8_t from[6] = {0x02, 0x00, 0x5e, 0x10, 0x20, 0x30};
  for (std::size_t i = 0; i < 6; ++i) out[6 + i] = static_cast<std::byte>(from[i]);
  out[12] = std::byte{0x88};
  out[13] = std::byte{0xB5};
  for (std::size_t i = 14; i < length; ++i) out[i] = static_cast<std::byte>((n * 7 + i) & 0xff);
  return out;
}

template <typename Rig>
class NicConformance : public Rig {
 protected:
  std::vector<std::byte> frame(std::uint32_t n, std::size_t length) {
    return conformance_frame(this->nic().mac(), n, length);
  }

  // Every frame received now, copied out, each buffer released.
  std::vector<std::vector<std::byte>> receive_all() {
    std::vector<std::vector<std::byte>> out;
    RxFrame batch[8];
    for (;;) {
      const std::size_t n = this->nic().receive(batch);
      for (std::size_t i = 0; i < n; ++i) {
        out.emplace_back(batch[i].data.begin(), batch[i].data.end());
        EXPECT_TRUE(this->nic().release(batch[i].handle).ok());
      }
      if (n == 0) return out;
    }
  }

  // wait_for_work() with a short limit: true if it returned, false if it
  // slept the whole time.
  bool woke_within(std::uint64_t timeout_ns) {
    bool woke = false;
    auto waited = this->run([](auto& nic, std::uint64_t limit, bool& out) -> async::Task<void> {
      auto r = co_await async::with_timeout(nic.wait_for_work(), limit);
      if (!r.ok() && r.error() != Error::kTimedOut) co_return Unexpected(r.error());
      out = r.ok();
      co_return {};
    }(this->nic(), timeout_ns, woke));
    EXPECT_TRUE(waited.ok());
    return woke;
  }

  // Wakes owed for earlier work (a start, a send) consumed.
  void settle() {
    for (int i = 0; i < 4 && woke_within(5 * async::kMillisecond); ++i) {
    }
  }
};

TYPED_TEST_SUITE_P(NicConformance);

TYPED_TEST_P(NicConformance, TransmitSendsEachFrameExactlyAndInOrder) {
  ASSERT_TRUE(this->start_nic().ok());
  (void)this->wire_out();
  const auto a = this->frame(1, 60);
  const auto b = this->frame(2, 1000);
  const auto c = this->frame(3, kMaxFrameBytes);
  const std::span<const std::byte> frames[] = {a, b, c};
  const std::uint64_t before = this->nic().stats().tx_frames;
  auto sent = this->nic().transmit(frames);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 3u);
  const auto out = this->wire_out();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], a);
  EXPECT_EQ(out[1], b);
  EXPECT_EQ(out[2], c);
  EXPECT_EQ(this->nic().stats().tx_frames, before + 3);
}

TYPED_TEST_P(NicConformance, TransmitRefusesAnEmptyOrOversizeFirstFrameAndStopsBeforeOne) {
  ASSERT_TRUE(this->start_nic().ok());
  (void)this->wire_out();
  const std::vector<std::byte> big(kMaxFrameBytes + 1);
  const auto good = this->frame(4, 200);
  for (const std::span<const std::byte> bad :
       {std::span<const std::byte>(big), std::span<const std::byte>()}) {
    const std::span<const std::byte> alone[] = {bad, good};
    auto refused = this->nic().transmit(alone);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), Error::kInvalidArgument);
    const std::span<const std::byte> after_one[] = {good, bad, good};
    auto first_only = this->nic().transmit(after_one);
    ASSERT_TRUE(first_only.ok());
    EXPECT_EQ(*first_only, 1u);
  }
  const auto out = this->wire_out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], good);
  EXPECT_EQ(out[1], good);
}

TYPED_TEST_P(NicConformance, TransmitGatherSendsTheFragmentsBackToBack) {
  ASSERT_TRUE(this->start_nic().ok());
  (void)this->wire_out();
  const auto whole = this->frame(5, kMaxFrameBytes);
  const std::span<const std::byte> all(whole);
  const TxFragment pieces[] = {all.first(1), TxFragment(), all.subspan(1, 13),
                               all.subspan(14, 1000), all.subspan(1014)};
  ASSERT_TRUE(this->nic().transmit_gather(pieces).ok());
  const auto small = this->frame(6, 64);
  const TxFragment one[] = {small};
  ASSERT_TRUE(this->nic().transmit_gather(one).ok());
  const auto out = this->wire_out();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], whole);
  EXPECT_EQ(out[1], small);
}

TYPED_TEST_P(NicConformance, TransmitGatherRefusesNothingOrTooMuchBeforeWriting) {
  ASSERT_TRUE(this->start_nic().ok());
  (void)this->wire_out();
  const auto whole = this->frame(7, kMaxFrameBytes);
  const std::byte extra[1] = {};
  const TxFragment too_much[] = {whole, extra};
  EXPECT_EQ(this->nic().transmit_gather(too_much).error(), Error::kInvalidArgument);
  const TxFragment nothing[] = {TxFragment(), TxFragment()};
  EXPECT_EQ(this->nic().transmit_gather(nothing).error(), Error::kInvalidArgument);
  EXPECT_EQ(this->nic().transmit_gather({}).error(), Error::kInvalidArgument);
  EXPECT_TRUE(this->wire_out().empty());
  EXPECT_EQ(this->nic().stats().tx_busy, 0u);
}

// Backpressure is a value: a full ring takes fewer frames (none at last),
// says kBusy once per refused call, writes nothing for them, and wakes a
// waiter when the device makes room. Nothing accepted is lost.
TYPED_TEST_P(NicConformance, FullRingIsBusyCountedAndLosesNothing) {
  ASSERT_TRUE(this->start_nic().ok());
  (void)this->wire_out();
  this->stall_tx(true);
  std::vector<std::vector<std::byte>> accepted;
  Result<std::size_t> last = std::size_t{0};
  for (std::uint32_t n = 0; n < 4096; ++n) {
    auto f = this->frame(n, 60 + n % 200);
    const std::span<const std::byte> one[] = {f};
    last = this->nic().transmit(one);
    if (!last.ok()) break;
    ASSERT_EQ(*last, 1u);
    accepted.push_back(std::move(f));
  }
  ASSERT_FALSE(last.ok()) << "4096 frames and the ring never filled";
  EXPECT_EQ(last.error(), Error::kBusy);
  const std::uint64_t busy = this->nic().stats().tx_busy;
  EXPECT_GE(busy, 1u);
  const auto f = this->frame(9999, 100);
  const std::span<const std::byte> one[] = {f};
  EXPECT_EQ(this->nic().transmit(one).error(), Error::kBusy);
  const TxFragment gather[] = {f};
  EXPECT_EQ(this->nic().transmit_gather(gather).error(), Error::kBusy);
  EXPECT_EQ(this->nic().stats().tx_busy, busy + 2);

  // The device catches up while the driver sleeps: the room wakes it.
  auto scenario = [](auto* self) -> async::Task<void> {
    async::Scope scope;
    (void)scope.spawn([](auto* s) -> async::Task<void> {
      auto r = co_await async::with_timeout(s->nic().wait_for_work(), 2 * async::kSecond);
      if (!r.ok()) co_return Unexpected(r.error());
      co_return {};
    }(self));
    (void)scope.spawn([](auto* s) -> async::Task<void> {
      co_await async::sleep_for(async::kMillisecond);
      s->stall_tx(false);
      co_return {};
    }(self));
    co_return co_await scope.join();
  };
  const auto woke = this->run(scenario(this));
  ASSERT_TRUE(woke.ok()) << error_name(woke.error());
  EXPECT_EQ(this->wire_out(), accepted);
  auto again = this->nic().transmit(one);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 1u);
}

TYPED_TEST_P(NicConformance, ReceivedFramesArriveExactlyAndAreReleasedOnce) {
  ASSERT_TRUE(this->start_nic().ok());
  std::vector<std::vector<std::byte>> delivered;
  for (std::uint32_t n = 0; n < 5; ++n) {
    delivered.push_back(this->frame(n, n == 4 ? kMaxFrameBytes : 60 + 300 * n));
    ASSERT_TRUE(this->wire_in(delivered.back()));
  }
  const std::uint64_t before = this->nic().stats().rx_frames;
  RxFrame got[8];
  const std::size_t n = this->nic().receive(got);
  ASSERT_EQ(n, 5u);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(std::vector<std::byte>(got[i].data.begin(), got[i].data.end()), delivered[i]) << i;
  }
  EXPECT_EQ(this->nic().stats().rx_frames, before + 5);
  EXPECT_EQ(this->nic().receive(got), 0u);
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(this->nic().release(got[i].handle).ok());
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(this->nic().release(got[i].handle).error(), Error::kInvalidArgument) << i;
  }
  // The buffers are the device's again: more frames than one batch arrive.
  for (std::uint32_t round = 0; round < 3; ++round) {
    for (std::uint32_t k = 0; k < 8; ++k) ASSERT_TRUE(this->wire_in(this->frame(k, 100)));
    EXPECT_EQ(this->receive_all().size(), 8u);
  }
}

// A refused release changes nothing: a batch gives back its valid handles
// and says one was refused.
TYPED_TEST_P(NicConformance, ReleaseRefusesHandlesNotHeld) {
  ASSERT_TRUE(this->start_nic().ok());
  EXPECT_EQ(this->nic().release(RxHandle{0xFFFF'FFF0}).error(), Error::kInvalidArgument);
  ASSERT_TRUE(this->wire_in(this->frame(1, 80)));
  ASSERT_TRUE(this->wire_in(this->frame(2, 80)));
  RxFrame got[2];
  ASSERT_EQ(this->nic().receive(got), 2u);
  const RxHandle batch[] = {got[0].handle, RxHandle{0xFFFF'FFF0}, got[1].handle};
  EXPECT_EQ(this->nic().release(batch).error(), Error::kInvalidArgument);
  EXPECT_EQ(this->nic().release(got[0].handle).error(), Error::kInvalidArgument);
  EXPECT_EQ(this->nic().release(got[1].handle).error(), Error::kInvalidArgument);
  ASSERT_TRUE(this->wire_in(this->frame(3, 80)));
  EXPECT_EQ(this->receive_all().size(), 1u);
}

TYPED_TEST_P(NicConformance, WaitForWorkSleepsWhenIdleAndWakesForAFrame) {
  ASSERT_TRUE(this->start_nic().ok());
  this->settle();
  EXPECT_FALSE(this->woke_within(5 * async::kMillisecond));
  auto scenario = [](auto* self, const std::vector<std::byte>& f) -> async::Task<void> {
    async::Scope scope;
    (void)scope.spawn([](auto* s) -> async::Task<void> {
      auto r = co_await async::with_timeout(s->nic().wait_for_work(), 2 * async::kSecond);
      if (!r.ok()) co_return Unexpected(r.error());
      co_return {};
    }(self));
    (void)scope.spawn([](auto* s, const std::vector<std::byte>& frame) -> async::Task<void> {
      co_await async::sleep_for(async::kMillisecond);
      if (!s->wire_in(frame)) co_return Unexpected(Error::kBusy);
      co_return {};
    }(self, f));
    co_return co_await scope.join();
  };
  const auto f = this->frame(8, 120);
  const auto woke = this->run(scenario(this, f));
  ASSERT_TRUE(woke.ok()) << error_name(woke.error());
  const auto got = this->receive_all();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], f);
}

// In place: the received buffer, rewritten, goes out as it is; a handle the
// stack no longer holds is refused.
TYPED_TEST_P(NicConformance, TransmitInPlaceSendsTheRewrittenFrame) {
  using NicType = std::remove_reference_t<decltype(this->nic())>;
  if constexpr (!NicSendsInPlace<NicType>) {
    GTEST_SKIP() << "no in-place TX (a capability: the netif copies instead)";
  } else {
    ASSERT_TRUE(this->start_nic().ok());
    (void)this->wire_out();
    ASSERT_TRUE(this->wire_in(this->frame(9, 300)));
    RxFrame got[1];
    ASSERT_EQ(this->nic().receive(got), 1u);
    for (std::size_t i = 0; i < 6; ++i) std::swap(got[0].data[i], got[0].data[6 + i]);
    const std::vector<std::byte> rewritten(got[0].data.begin(), got[0].data.end());
    auto sent = this->nic().transmit_in_place(got);
    ASSERT_TRUE(sent.ok());
    EXPECT_EQ(*sent, 1u);
    ASSERT_TRUE(this->nic().release(got[0].handle).ok());
    EXPECT_EQ(this->nic().transmit_in_place(got).error(), Error::kInvalidArgument);
    const auto out = this->wire_out();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], rewritten);
    // The buffer went back to the device once the send was done.
    for (std::uint32_t k = 0; k < 4; ++k) ASSERT_TRUE(this->wire_in(this->frame(k, 90)));
    EXPECT_EQ(this->receive_all().size(), 4u);
  }
}

REGISTER_TYPED_TEST_SUITE_P(NicConformance, TransmitSendsEachFrameExactlyAndInOrder,
                            TransmitRefusesAnEmptyOrOversizeFirstFrameAndStopsBeforeOne,
                            TransmitGatherSendsTheFragmentsBackToBack,
                            TransmitGatherRefusesNothingOrTooMuchBeforeWriting,
                            FullRingIsBusyCountedAndLosesNothing,
                            ReceivedFramesArriveExactlyAndAreReleasedOnce,
                            ReleaseRefusesHandlesNotHeld,
                            WaitForWorkSleepsWhenIdleAndWakesForAFrame,
                            TransmitInPlaceSendsTheRewrittenFrame);

}  // namespace starling::hal::testing

#endif  // STARLING_KERNEL_HAL_NIC_CONFORMANCE_H_
