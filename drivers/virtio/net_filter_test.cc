// Host test: virtio-net's receive filter through the control queue, against
// the device model's QEMU-like filter (fake_net_device.h): promiscuous off,
// the joined groups in the multicast MAC table, ALLMULTI when they do not
// fit or the device refuses, nothing sent to a device without the queue,
// and a device that never answers costs a bounded wait, not a hang.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net.h"
#include "drivers/virtio/net_test_rig.h"

namespace starling::virtio {
namespace {

using NetFilterTest = testing::NetRig;

constexpr hal::MacAddress kAllNodes{{0x33, 0x33, 0x00, 0x00, 0x00, 0x01}};
constexpr hal::MacAddress kSolicited{{0x33, 0x33, 0xff, 0x12, 0x34, 0x56}};
constexpr hal::MacAddress kUnjoined{{0x33, 0x33, 0x00, 0x00, 0x00, 0x18}};
constexpr hal::MacAddress kBroadcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
constexpr hal::MacAddress kOwn{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};
constexpr hal::MacAddress kOtherHost{{0x52, 0x54, 0x00, 0x99, 0x99, 0x99}};

std::vector<std::byte> frame_to(const hal::MacAddress& dst) {
  std::vector<std::byte> frame(60, std::byte{0x5a});
  for (unsigned i = 0; i < 6; ++i) frame[i] = static_cast<std::byte>(dst.bytes[i]);
  return frame;
}

std::array<std::uint8_t, 6> raw(const hal::MacAddress& mac) {
  std::array<std::uint8_t, 6> out{};
  for (unsigned i = 0; i < 6; ++i) out[i] = mac.bytes[i];
  return out;
}

TEST_F(NetFilterTest, JoinedGroupsOnlyOnceTheStackNamesThem) {
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  ASSERT_TRUE(init().ok());
  EXPECT_TRUE(net_.has_control_queue());
  EXPECT_EQ(device_.driver_features & (Net::kFeatureCtrlVq | Net::kFeatureCtrlRx),
            Net::kFeatureCtrlVq | Net::kFeatureCtrlRx);
  // Out of promiscuous mode, every group until the stack names its own.
  EXPECT_FALSE(device_.promisc);
  EXPECT_TRUE(device_.allmulti);
  EXPECT_FALSE(net_.filters_multicast());
  EXPECT_TRUE(device_.deliver(frame_to(kUnjoined)));
  EXPECT_FALSE(device_.deliver(frame_to(kOtherHost)));  // unicast for someone else

  const hal::MacAddress groups[] = {kAllNodes, kSolicited};
  net_.set_multicast_groups(groups);
  EXPECT_TRUE(net_.filters_multicast());
  EXPECT_FALSE(device_.allmulti);
  EXPECT_EQ(device_.multicast_table,
            (std::vector<std::array<std::uint8_t, 6>>{raw(kAllNodes), raw(kSolicited)}));
  EXPECT_EQ(net_.stats().rx_filter_updates, 1u);
  EXPECT_EQ(net_.stats().rx_filter_fallbacks, 0u);
  EXPECT_EQ(device_.ctrl_malformed, 0u);

  const std::uint64_t filtered = device_.rx_filtered;
  for (const auto& dst : {kAllNodes, kSolicited, kBroadcast, kOwn}) {
    EXPECT_TRUE(device_.deliver(frame_to(dst)));
  }
  EXPECT_FALSE(device_.deliver(frame_to(kUnjoined)));
  EXPECT_FALSE(device_.deliver(frame_to(kOtherHost)));
  EXPECT_EQ(device_.rx_filtered, filtered + 2);
  EXPECT_EQ(drain().size(), 5u);  // the unjoined group before set, then 4

  // Leaving a group takes it out of the table.
  const hal::MacAddress fewer[] = {kAllNodes};
  net_.set_multicast_groups(fewer);
  EXPECT_FALSE(device_.deliver(frame_to(kSolicited)));
  EXPECT_EQ(net_.stats().rx_filter_updates, 2u);
}

TEST_F(NetFilterTest, TooManyGroupsFallBackToAllMulticast) {
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  ASSERT_TRUE(init().ok());
  std::vector<hal::MacAddress> many(Net::kMaxFilterGroups + 1, kAllNodes);
  for (std::size_t i = 0; i < many.size(); ++i) {
    many[i].bytes[4] = 0x77;  // none of them kUnjoined
    many[i].bytes[5] = static_cast<std::uint8_t>(i);
  }
  net_.set_multicast_groups(many);
  EXPECT_FALSE(net_.filters_multicast());
  EXPECT_TRUE(device_.allmulti);
  EXPECT_EQ(net_.stats().rx_filter_fallbacks, 1u);
  EXPECT_TRUE(device_.deliver(frame_to(kUnjoined)));
  // Back within the limit: exact again.
  many.resize(Net::kMaxFilterGroups);
  net_.set_multicast_groups(many);
  EXPECT_TRUE(net_.filters_multicast());
  EXPECT_EQ(device_.multicast_table.size(), Net::kMaxFilterGroups);
  EXPECT_FALSE(device_.deliver(frame_to(kUnjoined)));
}

TEST_F(NetFilterTest, RefusedCommandsLeaveEveryFrameComing) {
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  device_.ctrl_ack = 1;  // VIRTIO_NET_ERR to everything
  ASSERT_TRUE(init().ok());
  const hal::MacAddress groups[] = {kAllNodes};
  net_.set_multicast_groups(groups);
  EXPECT_FALSE(net_.filters_multicast());
  EXPECT_TRUE(device_.promisc);
  EXPECT_GE(net_.stats().rx_filter_fallbacks, 1u);
  EXPECT_TRUE(device_.deliver(frame_to(kUnjoined)));
}

TEST_F(NetFilterTest, SilentDeviceCostsABoundedWait) {
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  device_.ctrl_answers = false;
  ASSERT_TRUE(init().ok());  // the first command times out; init still succeeds
  EXPECT_FALSE(net_.has_control_queue());
  EXPECT_EQ(net_.stats().rx_filter_fallbacks, 1u);
  const hal::MacAddress groups[] = {kAllNodes};
  net_.set_multicast_groups(groups);  // no second wait: the queue is given up
  EXPECT_EQ(device_.notifies[2], 1u);
  EXPECT_TRUE(device_.deliver(frame_to(kUnjoined)));  // still promiscuous
  EXPECT_EQ(drain().size(), 1u);
  // A reset takes the stuck command back and the filter works again.
  device_.ctrl_answers = true;
  device_.need_reset();
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_TRUE(net_.has_control_queue());
  EXPECT_TRUE(net_.filters_multicast());
  EXPECT_FALSE(device_.deliver(frame_to(kUnjoined)));
}

TEST_F(NetFilterTest, ResetProgramsTheFilterAgain) {
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  ASSERT_TRUE(init().ok());
  const hal::MacAddress groups[] = {kAllNodes, kSolicited};
  net_.set_multicast_groups(groups);
  device_.need_reset();  // the device forgets: promiscuous again
  ASSERT_TRUE(executor_.block_on(async::as_task(net_.wait_for_work())).ok());
  EXPECT_FALSE(device_.promisc);
  EXPECT_FALSE(device_.allmulti);
  EXPECT_EQ(device_.multicast_table.size(), 2u);
  EXPECT_TRUE(device_.deliver(frame_to(kSolicited)));
  EXPECT_FALSE(device_.deliver(frame_to(kUnjoined)));
}

TEST_F(NetFilterTest, NoControlQueueMeansNoCommands) {
  ASSERT_TRUE(init().ok());  // kOffered: no CTRL_VQ
  EXPECT_FALSE(net_.has_control_queue());
  const hal::MacAddress groups[] = {kAllNodes};
  net_.set_multicast_groups(groups);
  EXPECT_EQ(device_.notifies[2], 0u);
  EXPECT_TRUE(device_.promisc);
  EXPECT_TRUE(device_.deliver(frame_to(kUnjoined)));
  EXPECT_EQ(net_.stats().rx_filter_fallbacks, 0u);
}

TEST_F(NetFilterTest, LegacyNeedsAnyLayout) {
  device_.version = kVersionLegacy;
  device_.offered = testing::FakeNetDevice::kOfferedFilter;
  ASSERT_TRUE(init().ok());
  EXPECT_FALSE(net_.has_control_queue());  // no ANY_LAYOUT: left promiscuous
  EXPECT_TRUE(device_.promisc);
}

TEST_F(NetFilterTest, LegacyWithAnyLayoutFilters) {
  device_.version = kVersionLegacy;
  device_.offered = testing::FakeNetDevice::kOfferedFilter | Net::kFeatureAnyLayout;
  ASSERT_TRUE(init().ok());
  EXPECT_TRUE(net_.has_control_queue());
  const hal::MacAddress groups[] = {kAllNodes};
  net_.set_multicast_groups(groups);
  EXPECT_TRUE(net_.filters_multicast());
  EXPECT_FALSE(device_.deliver(frame_to(kUnjoined)));
  EXPECT_TRUE(device_.deliver(frame_to(kAllNodes)));
}

}  // namespace
}  // namespace starling::virtio
