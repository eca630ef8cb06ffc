#include "net/netif/frame_filter.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace starling::net {
namespace {

std::vector<std::byte> frame(std::uint16_t ethertype, std::size_t payload_bytes,
                             std::uint8_t dst0 = 0x52) {
  std::vector<std::byte> f(14 + payload_bytes);
  f[0] = std::byte{dst0};
  f[12] = std::byte(ethertype >> 8);
  f[13] = std::byte(ethertype & 0xFF);
  return f;
}

std::vector<std::byte> ipv4(std::size_t payload_bytes, std::uint8_t version_ihl = 0x45,
                            std::size_t total = 0, std::uint8_t dst0 = 10) {
  auto f = frame(0x0800, payload_bytes);
  if (payload_bytes >= 20) {
    if (total == 0) total = payload_bytes;
    f[14] = std::byte{version_ihl};
    f[16] = std::byte(total >> 8);
    f[17] = std::byte(total & 0xFF);
    f[30] = std::byte{dst0};
  }
  return f;
}

TEST(FrameFilter, ArpNeedsItsWholeHeader) {
  EXPECT_EQ(classify_frame(frame(0x0806, 27)), FrameVerdict::kRuntArp);
  EXPECT_EQ(classify_frame(frame(0x0806, 0)), FrameVerdict::kRuntArp);
  EXPECT_EQ(classify_frame(frame(0x0806, 28)), FrameVerdict::kArp);
  EXPECT_EQ(classify_frame(frame(0x0806, 46, 0xFF)), FrameVerdict::kMulticast);  // not all-ones
  auto broadcast = frame(0x0806, 46);
  for (int i = 0; i < 6; ++i) broadcast[i] = std::byte{0xFF};
  EXPECT_EQ(classify_frame(broadcast), FrameVerdict::kArp);
}

TEST(FrameFilter, Ipv4HeaderChecks) {
  EXPECT_EQ(classify_frame(ipv4(19)), FrameVerdict::kRuntIpv4);
  EXPECT_EQ(classify_frame(ipv4(20)), FrameVerdict::kPass);
  EXPECT_EQ(classify_frame(ipv4(40, 0x46)), FrameVerdict::kPass);           // IHL 6 fits
  EXPECT_EQ(classify_frame(ipv4(22, 0x46, 22)), FrameVerdict::kRuntIpv4);   // IHL 6 > 22 bytes
  EXPECT_EQ(classify_frame(ipv4(40, 0x44)), FrameVerdict::kBadIpv4Header);  // IHL 4
  EXPECT_EQ(classify_frame(ipv4(40, 0x65)), FrameVerdict::kBadIpv4Header);  // version 6
  EXPECT_EQ(classify_frame(ipv4(40, 0x45, 60)), FrameVerdict::kRuntIpv4);   // total > frame
  EXPECT_EQ(classify_frame(ipv4(46, 0x45, 28)), FrameVerdict::kPass);       // Ethernet padding
  EXPECT_EQ(classify_frame(ipv4(46, 0x45, 12)), FrameVerdict::kRuntIpv4);   // total < IHL
}

TEST(FrameFilter, MulticastNotJoinedIsRefused) {
  EXPECT_EQ(classify_frame(ipv4(28, 0x45, 28, 224)), FrameVerdict::kMulticast);
  EXPECT_EQ(classify_frame(ipv4(28, 0x45, 28, 239)), FrameVerdict::kMulticast);
  EXPECT_EQ(classify_frame(ipv4(28, 0x45, 28, 223)), FrameVerdict::kPass);
  EXPECT_EQ(classify_frame(ipv4(28, 0x45, 28, 255)),
            FrameVerdict::kPass);  // broadcast: services decide
  auto group = ipv4(28);
  group[0] = std::byte{0x01};  // 01:00:5e:..
  EXPECT_EQ(classify_frame(group), FrameVerdict::kMulticast);
}

TEST(FrameFilter, OtherEthertypesPassToLwip) {
  EXPECT_EQ(classify_frame(frame(0x86DD, 40)), FrameVerdict::kPass);
  EXPECT_EQ(classify_frame(frame(0x88B5, 0)), FrameVerdict::kPass);
}

}  // namespace
}  // namespace starling::net
