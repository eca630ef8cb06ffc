// Host test: virtio-net checksum offload (CSUM, GUEST_CSUM) against the
// device model. TX: a TCP/UDP frame goes out with NEEDS_CSUM, csum_start and
// csum_offset, and the pseudo-header sum in the field, so that the device's
// completion is the real checksum, once the stack enabled it; without CSUM
// (or before) the header stays zero.
// RX: DATA_VALID / NEEDS_CSUM become RxFrame::checksum_verified only when
// GUEST_CSUM was negotiated.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/virtio/net.h"
#include "drivers/virtio/net_test_rig.h"
#include "kernel/test_frames/frames.h"

namespace starling::virtio {
namespace {

namespace tf = starling::test_frames;
using NetChecksumTest = testing::NetRig;

const tf::Ethernet kEth{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}};
const tf::Ipv4 kIp{.src = 0x0A00020F, .dst = 0x0A000202, .id = 9};

std::vector<std::byte> datagram(std::size_t n) {
  std::vector<std::byte> payload(n);
  for (std::size_t i = 0; i < n; ++i) payload[i] = std::byte(i * 13 + 1);
  // Checksum 0, as lwIP leaves it with GEN_UDP off.
  return tf::udp_frame(kEth, kIp, {.src_port = 1235, .dst_port = 40000}, payload);
}

std::uint16_t le16(const std::array<std::byte, 12>& h, std::size_t at) {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(h[at]) |
                                    std::to_integer<unsigned>(h[at + 1]) << 8);
}

hal::RxFrame receive_one(Net& net) {
  hal::RxFrame frame[1];
  EXPECT_EQ(net.receive(frame), 1u);
  return frame[0];
}

TEST_F(NetChecksumTest, TxFramesAskTheDeviceToCompleteTheChecksum) {
  ASSERT_TRUE(init().ok());
  EXPECT_EQ(net_.enable_tx_checksum_offload(), (hal::TxChecksumOffload{.udp = true, .tcp = true}));
  for (std::size_t n : {1u, 100u, 1472u}) {
    auto frame = datagram(n);
    std::span<const std::byte> one[] = {frame};
    ASSERT_TRUE(net_.transmit(one).ok());
    const auto& header = device_.tx_headers.back();
    EXPECT_EQ(std::to_integer<unsigned>(header[0]), 1u) << "NEEDS_CSUM";
    EXPECT_EQ(le16(header, 6), 34u) << "csum_start: after Ethernet and IPv4";
    EXPECT_EQ(le16(header, 8), 6u) << "csum_offset: UDP's checksum field";
    // Complete it as the device does; the receiver's check must then pass.
    auto sent = device_.transmitted.back();
    const auto l4 = std::span<std::byte>(sent).subspan(34);
    tf::put16(l4, 6, tf::internet_checksum(l4));
    EXPECT_EQ(tf::ones_complement_sum(l4, tf::pseudo_header_sum(kIp.src, kIp.dst, 17, l4.size())),
              0xFFFFu)
        << n;
  }
}

TEST_F(NetChecksumTest, GatheredFramesToo) {
  ASSERT_TRUE(init().ok());
  (void)net_.enable_tx_checksum_offload();
  auto frame = datagram(600);
  const std::span<const std::byte> whole(frame);
  const hal::TxFragment pieces[] = {whole.first(42), whole.subspan(42)};
  ASSERT_TRUE(net_.transmit_gather(pieces).ok());
  EXPECT_EQ(std::to_integer<unsigned>(device_.tx_headers.back()[0]), 1u);
  EXPECT_EQ(le16(device_.tx_headers.back(), 6), 34u);
}

TEST_F(NetChecksumTest, WithoutCsumTheHeaderStaysZeroAndTheFrameAsGiven) {
  device_.offered &= ~(Net::kFeatureCsum | Net::kFeatureGuestCsum);  // QEMU's user networking
  ASSERT_TRUE(init().ok());
  EXPECT_EQ(net_.enable_tx_checksum_offload(), hal::TxChecksumOffload{});
  auto frame = datagram(100);
  std::span<const std::byte> one[] = {frame};
  ASSERT_TRUE(net_.transmit(one).ok());
  EXPECT_EQ(device_.tx_headers.back(), (std::array<std::byte, 12>{}));
  EXPECT_EQ(device_.transmitted.back(), frame);
}

TEST_F(NetChecksumTest, ArpAndIcmpGoWithoutTheFlag) {
  ASSERT_TRUE(init().ok());
  (void)net_.enable_tx_checksum_offload();
  auto icmp = tf::ipv4_frame(kEth, kIp, 1, std::vector<std::byte>(40));
  std::span<const std::byte> one[] = {icmp};
  ASSERT_TRUE(net_.transmit(one).ok());
  EXPECT_EQ(device_.tx_headers.back(), (std::array<std::byte, 12>{}));
  EXPECT_EQ(device_.transmitted.back(), icmp);
}

TEST_F(NetChecksumTest, UntilEnabledFramesGoExactlyAsGiven) {
  ASSERT_TRUE(init().ok());  // a raw sender (apps/reflector) never enables it
  auto frame = datagram(100);
  std::span<const std::byte> one[] = {frame};
  ASSERT_TRUE(net_.transmit(one).ok());
  EXPECT_EQ(device_.tx_headers.back(), (std::array<std::byte, 12>{}));
  EXPECT_EQ(device_.transmitted.back(), frame);
}

TEST_F(NetChecksumTest, RxVouchedOnlyWhenTheDeviceSaysSo) {
  ASSERT_TRUE(init().ok());
  const auto frame = datagram(64);
  ASSERT_TRUE(device_.deliver(frame, /*DATA_VALID*/ 2));
  auto got = receive_one(net_);
  EXPECT_TRUE(got.checksum_verified);
  EXPECT_TRUE(std::equal(got.data.begin(), got.data.end(), frame.begin(), frame.end()));
  ASSERT_TRUE(net_.release(got.handle).ok());
  // NEEDS_CSUM from a host stack: never on a wire, nothing to check.
  ASSERT_TRUE(device_.deliver(frame, /*NEEDS_CSUM*/ 1));
  got = receive_one(net_);
  EXPECT_TRUE(got.checksum_verified);
  ASSERT_TRUE(net_.release(got.handle).ok());
  ASSERT_TRUE(device_.deliver(frame, 0));
  got = receive_one(net_);
  EXPECT_FALSE(got.checksum_verified);
  ASSERT_TRUE(net_.release(got.handle).ok());
}

TEST_F(NetChecksumTest, RxFlagsIgnoredWithoutGuestCsum) {
  device_.offered &= ~Net::kFeatureGuestCsum;
  ASSERT_TRUE(init().ok());
  ASSERT_TRUE(device_.deliver(datagram(64), 2));  // a device setting what it may not
  auto got = receive_one(net_);
  EXPECT_FALSE(got.checksum_verified);
  ASSERT_TRUE(net_.release(got.handle).ok());
}

TEST_F(NetChecksumTest, LegacyHeaderCarriesTheSameFields) {
  device_.version = kVersionLegacy;
  ASSERT_TRUE(init().ok());
  (void)net_.enable_tx_checksum_offload();
  auto frame = datagram(200);
  std::span<const std::byte> one[] = {frame};
  ASSERT_TRUE(net_.transmit(one).ok());
  EXPECT_EQ(device_.header_bytes(), 10u);
  EXPECT_EQ(std::to_integer<unsigned>(device_.tx_headers.back()[0]), 1u);
  EXPECT_EQ(le16(device_.tx_headers.back(), 6), 34u);
  EXPECT_EQ(le16(device_.tx_headers.back(), 8), 6u);
}

}  // namespace
}  // namespace starling::virtio
