// Host test: virtio-net's transmit from RX buffers (transmit_in_place) and
// the loans nic::RingDriver keeps for it, against the virtio-mmio device
// model: the frame goes out without a copy, a buffer released while it is
// still being sent reaches the RX ring only once the device has used its
// TX descriptor, the loan limit falls back to a copy, a device reset gives
// every lent buffer back. Runs under ASan and UBSan.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net.h"
#include "drivers/virtio/net_test_rig.h"

namespace starling::virtio {
namespace {

using testing::frame_of;
using NetInPlaceTest = testing::NetRig;

// Receives `count` frames of 100 bytes (frame_of(i)), all held.
std::vector<hal::RxFrame> receive_held(Net& net, testing::FakeNetDevice& device, int count) {
  for (int i = 0; i < count; ++i) EXPECT_TRUE(device.deliver(frame_of(i, 100)));
  std::vector<hal::RxFrame> held(static_cast<std::size_t>(count));
  EXPECT_EQ(net.receive(held), static_cast<std::size_t>(count));
  return held;
}

TEST_F(NetInPlaceTest, SendsTheRxBufferItselfRewrittenInPlace) {
  ASSERT_TRUE(init().ok());
  auto held = receive_held(net_, device_, 1);
  held[0].data[0] = std::byte{0xAA};  // a reflector swapping MACs, in place
  auto sent = net_.transmit_in_place(held);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(*sent, 1u);
  ASSERT_EQ(device_.transmitted.size(), 1u);
  auto want = frame_of(0, 100);
  want[0] = std::byte{0xAA};
  EXPECT_EQ(device_.transmitted[0], want);
  EXPECT_EQ(net_.stats().tx_in_place, 1u);
  EXPECT_EQ(net_.stats().tx_in_place_copied, 0u);
  ASSERT_TRUE(net_.release(held[0].handle).ok());
  EXPECT_FALSE(net_.release(held[0].handle).ok());  // once only, even on loan
}

// A frame that begins later in the buffer (headers written over stripped
// ones) and is longer than what arrived still goes out from there; one
// that begins where the driver's header lives, or runs past the buffer, is
// refused and nothing is sent.
TEST_F(NetInPlaceTest, FrameMayMoveInsideItsBufferButNotOutOfIt) {
  ASSERT_TRUE(init().ok());
  auto held = receive_held(net_, device_, 1);
  hal::RxFrame later = held[0];
  later.data = std::span(held[0].data.data() + 8, 300);
  ASSERT_TRUE(net_.transmit_in_place(std::span(&later, 1)).ok());
  ASSERT_EQ(device_.transmitted.size(), 1u);
  EXPECT_EQ(device_.transmitted[0].size(), 300u);
  EXPECT_EQ(device_.transmitted[0][0], frame_of(0, 100)[8]);

  hal::RxFrame over_header = held[0];
  over_header.data = std::span(held[0].data.data() - 4, 60);
  auto refused = net_.transmit_in_place(std::span(&over_header, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), Error::kInvalidArgument);
  hal::RxFrame past_end = held[0];
  past_end.data = std::span(held[0].data.data() + 1000, 1100);
  EXPECT_FALSE(net_.transmit_in_place(std::span(&past_end, 1)).ok());
  hal::RxFrame not_held{.data = held[0].data, .handle = 77};
  EXPECT_FALSE(net_.transmit_in_place(std::span(&not_held, 1)).ok());
  EXPECT_EQ(device_.transmitted.size(), 1u);
  ASSERT_TRUE(net_.release(held[0].handle).ok());
}

// The two owners: the stack (until release) and the TX ring (until the
// device uses the descriptor). The buffer goes back to the RX ring only
// when both are done, in either order.
TEST_F(NetInPlaceTest, ReleasedBufferWaitsForTheDeviceToFinishSending) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  auto held = receive_held(net_, device_, 2);
  ASSERT_EQ(*net_.transmit_in_place(held), 2u);
  EXPECT_EQ(net_.rx_loans(), 2u);
  EXPECT_EQ(device_.queue(0)->pending(), 254);
  // Released first: not reposted while the device may still read it.
  ASSERT_TRUE(net_.release(held[0].handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 254);
  device_.consume_tx();
  auto again = net_.transmit(std::vector<std::span<const std::byte>>{});  // reclaims
  (void)again;
  EXPECT_EQ(net_.rx_loans(), 0u);
  EXPECT_EQ(device_.queue(0)->pending(), 255);  // held[0] is back with the device
  // Sent first: still the stack's until it releases it.
  ASSERT_TRUE(net_.release(held[1].handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 256);
  ASSERT_EQ(device_.transmitted.size(), 2u);
  EXPECT_EQ(device_.transmitted[1], frame_of(1, 100));
}

// At most hal::kMaxRxLoans buffers out with the TX ring: the rest of a batch
// is copied (counted), so a slow TX ring cannot take the RX ring's buffers;
// a buffer already on loan sent again is copied too.
TEST_F(NetInPlaceTest, LoanLimitAndRepeatsFallBackToACopy) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  const int n = static_cast<int>(hal::kMaxRxLoans) + 8;
  auto held = receive_held(net_, device_, n);
  ASSERT_EQ(*net_.transmit_in_place(held), static_cast<std::size_t>(n));
  EXPECT_EQ(net_.stats().tx_in_place, hal::kMaxRxLoans);
  EXPECT_EQ(net_.stats().tx_in_place_copied, 8u);
  EXPECT_EQ(net_.rx_loans(), hal::kMaxRxLoans);
  ASSERT_EQ(*net_.transmit_in_place(std::span(held.data(), 1)), 1u);  // on loan already
  EXPECT_EQ(net_.stats().tx_in_place_copied, 9u);
  for (auto& f : held) ASSERT_TRUE(net_.release(f.handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 256 - static_cast<int>(hal::kMaxRxLoans));
  device_.consume_tx();
  ASSERT_EQ(device_.transmitted.size(), static_cast<std::size_t>(n) + 1);
  for (int i = 0; i < n; ++i) EXPECT_EQ(device_.transmitted[i], frame_of(i, 100));
  EXPECT_EQ(device_.transmitted[n], frame_of(0, 100));
  auto reclaim = net_.transmit(std::vector<std::span<const std::byte>>{});
  (void)reclaim;
  EXPECT_EQ(device_.queue(0)->pending(), 256);
}

// A device reset drops the TX ring: every lent buffer ends its loan, the
// released ones go back to the fresh RX ring, the held ones stay held.
TEST_F(NetInPlaceTest, ResetEndsEveryLoan) {
  device_.consume_tx_on_notify = false;
  ASSERT_TRUE(init().ok());
  auto held = receive_held(net_, device_, 3);
  ASSERT_EQ(*net_.transmit_in_place(held), 3u);
  ASSERT_TRUE(net_.release(held[0].handle).ok());
  ASSERT_TRUE(net_.release(held[1].handle).ok());
  device_.need_reset();
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_EQ(net_.stats().resets, 1u);
  EXPECT_EQ(net_.rx_loans(), 0u);
  EXPECT_EQ(device_.queue(0)->pending(), 255);  // all but held[2]
  ASSERT_TRUE(net_.release(held[2].handle).ok());
  EXPECT_EQ(device_.queue(0)->pending(), 256);
}

}  // namespace
}  // namespace starling::virtio
