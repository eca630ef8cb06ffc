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
  EXPECT_EQ(classify_frame(frame(0x88B5, 0)), FrameVerdict::kPass);
}

// An IPv6 packet: `chain` extension headers (each 8 bytes, `kind`) before a
// UDP header and `data` bytes; payload length as built unless `length`.
std::vector<std::byte> ipv6(std::size_t chain, std::uint8_t kind = 60, std::size_t data = 8,
                            int length = -1, std::uint8_t version = 6) {
  const std::size_t payload = chain * 8 + 8 + data;
  auto f = frame(0x86DD, 40 + payload);
  f[14] = std::byte(version << 4);
  const std::size_t said = length < 0 ? payload : static_cast<std::size_t>(length);
  f[18] = std::byte(said >> 8);
  f[19] = std::byte(said & 0xFF);
  f[20] = std::byte{chain == 0 ? std::uint8_t{17} : kind};
  for (std::size_t i = 0; i < chain; ++i) {
    const std::size_t at = 54 + i * 8;
    f[at] = std::byte{i + 1 == chain ? std::uint8_t{17} : kind};
    f[at + 1] = std::byte{0};  // 8 bytes (options) / offset 0 (fragment)
  }
  return f;
}

TEST(FrameFilter, Ipv6HeaderAndLength) {
  EXPECT_EQ(classify_frame(ipv6(0)), FrameVerdict::kPass);
  EXPECT_EQ(classify_frame(frame(0x86DD, 39)), FrameVerdict::kRuntIpv6);
  EXPECT_EQ(classify_frame(ipv6(0, 60, 8, 100)), FrameVerdict::kRuntIpv6);  // says more than it has
  EXPECT_EQ(classify_frame(ipv6(0, 60, 8, 0)), FrameVerdict::kRuntIpv6);    // jumbogram
  EXPECT_EQ(classify_frame(ipv6(0, 60, 8, 8)), FrameVerdict::kPass);        // padding after it
  EXPECT_EQ(classify_frame(ipv6(0, 60, 8, -1, 4)), FrameVerdict::kBadIpv6Header);
}

TEST(FrameFilter, Ipv6ExtensionChainIsBounded) {
  for (std::size_t n = 1; n <= kMaxIpv6ExtensionHeaders; ++n) {
    EXPECT_EQ(classify_frame(ipv6(n)), FrameVerdict::kPass) << n;
    EXPECT_EQ(classify_frame(ipv6(n, 0)), FrameVerdict::kPass) << n;  // hop-by-hop kind
  }
  EXPECT_EQ(classify_frame(ipv6(kMaxIpv6ExtensionHeaders + 1)), FrameVerdict::kLongIpv6Chain);
  EXPECT_EQ(classify_frame(ipv6(40)), FrameVerdict::kLongIpv6Chain);
  // A header that claims more bytes than the packet has.
  auto cut = ipv6(2);
  cut[54 + 8 + 1] = std::byte{20};  // the second header: 168 bytes
  EXPECT_EQ(classify_frame(cut), FrameVerdict::kRuntIpv6);
  // A later fragment's payload is not a header chain.
  auto later = ipv6(1, 44);
  later[54 + 3] = std::byte{0x08};  // offset 1 (8 bytes)
  EXPECT_EQ(classify_frame(later), FrameVerdict::kPass);
}

TEST(FrameFilter, Ipv6GroupsPassOnlyWhenJoined) {
  auto to_group = ipv6(0);
  const std::uint8_t all_nodes[6] = {0x33, 0x33, 0, 0, 0, 1};
  const std::uint8_t mdns[6] = {0x33, 0x33, 0, 0, 0, 0xFB};
  for (int i = 0; i < 6; ++i) to_group[i] = std::byte{all_nodes[i]};
  EXPECT_EQ(classify_frame(to_group), FrameVerdict::kMulticast);
  JoinedGroups joined;
  EXPECT_TRUE(joined.add({0x33, 0x33, 0, 0, 0, 1}));
  EXPECT_EQ(classify_frame(to_group, joined), FrameVerdict::kPass);
  for (int i = 0; i < 6; ++i) to_group[i] = std::byte{mdns[i]};
  EXPECT_EQ(classify_frame(to_group, joined), FrameVerdict::kMulticast);
  // IPv4 in a joined IPv6 group's frame: not ours.
  auto v4 = ipv4(28);
  for (int i = 0; i < 6; ++i) v4[i] = std::byte{all_nodes[i]};
  EXPECT_EQ(classify_frame(v4, joined), FrameVerdict::kMulticast);
}

TEST(JoinedGroups, CountsJoinsAndIsBounded) {
  JoinedGroups joined;
  const JoinedGroups::Mac a{0x33, 0x33, 0xFF, 1, 2, 3};
  EXPECT_TRUE(joined.add(a));
  EXPECT_TRUE(joined.add(a));  // a second address with the same solicited-node group
  joined.remove(a);
  std::vector<std::byte> mac = {std::byte{0x33}, std::byte{0x33}, std::byte{0xFF},
                                std::byte{1},    std::byte{2},    std::byte{3}};
  EXPECT_TRUE(joined.contains(mac));
  joined.remove(a);
  EXPECT_FALSE(joined.contains(mac));
  for (std::uint8_t i = 0; i < JoinedGroups::kMax; ++i) {
    EXPECT_TRUE(joined.add({0x33, 0x33, 0xFF, 0, 0, i}));
  }
  EXPECT_FALSE(joined.add({0x33, 0x33, 0xFF, 0, 1, 0}));
  EXPECT_EQ(joined.size(), JoinedGroups::kMax);
}

}  // namespace
}  // namespace starling::net
