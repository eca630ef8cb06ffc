#include "drivers/nic/partial_checksum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "kernel/test_frames/frames.h"

namespace starling::nic {
namespace {

namespace tf = starling::test_frames;

const tf::Ethernet kEth{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}};
const tf::Ipv4 kIp{.src = 0x0A00020F, .dst = 0x0A000202, .id = 7};

std::vector<std::byte> payload(std::size_t n) {
  std::vector<std::byte> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = std::byte(i * 31 + 5);
  return p;
}

// What a device does with NEEDS_CSUM: sum from start to the end over the
// field as the driver left it, complement, store.
void complete_like_a_device(std::span<std::byte> frame, const PartialChecksum& p) {
  const auto l4 = frame.subspan(p.start);
  std::uint16_t sum = tf::internet_checksum(l4);
  tf::put16(l4, p.offset, sum);
}

TEST(PartialChecksum, UdpCompletedByTheDeviceIsTheRealChecksum) {
  for (std::size_t n : {0u, 1u, 17u, 1472u}) {
    auto frame = tf::udp_frame(kEth, kIp, {.src_port = 1235, .dst_port = 40000}, payload(n));
    auto want = frame;
    tf::write_udp_headers(want, kIp, {.src_port = 1235, .dst_port = 40000, .checksum = true});
    auto partial = prepare_partial_checksum(frame);
    ASSERT_TRUE(partial.has_value()) << n;
    EXPECT_EQ(partial->start, 34);
    EXPECT_EQ(partial->offset, 6);
    // The field holds the pseudo-header sum, not complemented.
    EXPECT_EQ(tf::get16(frame, 40),
              tf::ones_complement_sum({}, tf::pseudo_header_sum(kIp.src, kIp.dst, 17, 8 + n)));
    complete_like_a_device(frame, *partial);
    const std::uint16_t got = tf::get16(frame, 40);
    const std::uint16_t expected = tf::get16(want, 40);
    // 0 and 0xFFFF are the same sum; RFC 768 sends the latter.
    EXPECT_TRUE(got == expected || (got == 0 && expected == 0xFFFF)) << n;
  }
}

TEST(PartialChecksum, TcpFieldIsSixteenBytesIn) {
  std::vector<std::byte> segment(20 + 100);
  segment[12] = std::byte{0x50};  // data offset 5
  for (std::size_t i = 20; i < segment.size(); ++i) segment[i] = std::byte(i);
  auto frame = tf::ipv4_frame(kEth, kIp, tf::kProtocolTcp, segment);
  auto partial = prepare_partial_checksum(frame);
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->offset, 16);
  complete_like_a_device(frame, *partial);
  // A receiver's check: the whole segment with the pseudo-header sums to 0xFFFF.
  const auto l4 = std::span<const std::byte>(frame).subspan(34);
  EXPECT_EQ(tf::ones_complement_sum(l4, tf::pseudo_header_sum(kIp.src, kIp.dst, 6, l4.size())),
            0xFFFF);
}

// The field against the pseudo-header's sum computed apart, for random
// addresses and lengths (sums that carry past 16 bits), with the frame at
// even and odd addresses.
TEST(PartialChecksum, Ipv4PseudoHeaderSumAtEvenAndOddAddresses) {
  std::mt19937_64 next(2026);
  for (int round = 0; round < 2000; ++round) {
    const tf::Ipv4 ip{.src = static_cast<std::uint32_t>(next()),
                      .dst = static_cast<std::uint32_t>(next()),
                      .id = 1};
    const std::size_t n = next() % 1473;
    const bool tcp = round % 2 == 1;
    std::vector<std::byte> l4(tcp ? 20 + n : 8 + n);
    if (tcp) l4[12] = std::byte{0x50};
    const std::vector<std::byte> built =
        tf::ipv4_frame(kEth, ip, tcp ? tf::kProtocolTcp : tf::kProtocolUdp, l4);
    for (std::size_t offset : {0u, 1u, 2u}) {
      std::vector<std::byte> buffer(built.size() + 4);
      std::span<std::byte> frame(buffer.data() + offset, built.size());
      std::copy(built.begin(), built.end(), frame.begin());
      auto partial = prepare_partial_checksum(frame);
      ASSERT_TRUE(partial.has_value()) << round;
      const std::uint16_t want = tf::ones_complement_sum(
          {}, tf::pseudo_header_sum(ip.src, ip.dst, tcp ? 6 : 17, l4.size()));
      ASSERT_EQ(tf::get16(frame, partial->start + partial->offset), want)
          << "round " << round << " offset " << offset;
    }
  }
}

TEST(PartialChecksum, OthersAreLeftAlone) {
  auto udp = tf::udp_frame(kEth, kIp, {.src_port = 1, .dst_port = 2}, payload(64));
  // A fragment (MF set), then a later fragment (offset 185 x 8).
  for (std::uint16_t flags : {0x2000, 0x00B9}) {
    auto frame = udp;
    tf::put16(frame, 20, flags);
    const auto before = frame;
    EXPECT_FALSE(prepare_partial_checksum(frame).has_value()) << flags;
    EXPECT_EQ(frame, before);
  }
  auto icmp = tf::ipv4_frame(kEth, kIp, 1, payload(16));
  EXPECT_FALSE(prepare_partial_checksum(icmp).has_value());
  auto arp = udp;
  tf::put16(arp, 12, 0x0806);
  EXPECT_FALSE(prepare_partial_checksum(arp).has_value());
  // Total length beyond the frame, a TCP segment too short for its field.
  auto lying = udp;
  tf::put16(lying, 16, 1500);
  EXPECT_FALSE(prepare_partial_checksum(lying).has_value());
  auto stub = tf::ipv4_frame(kEth, kIp, tf::kProtocolTcp, payload(12));
  EXPECT_FALSE(prepare_partial_checksum(stub).has_value());
  auto runt = std::vector<std::byte>(udp.begin(), udp.begin() + 30);
  EXPECT_FALSE(prepare_partial_checksum(runt).has_value());
}

// An IPv6 frame: the fixed header, then `next` and its bytes.
std::vector<std::byte> ipv6_frame(std::uint8_t next, std::span<const std::byte> upper) {
  std::vector<std::byte> f(14 + 40 + upper.size());
  tf::put16(f, 12, 0x86DD);
  f[14] = std::byte{0x60};
  tf::put16(f, 18, static_cast<std::uint16_t>(upper.size()));
  f[20] = std::byte{next};
  f[21] = std::byte{64};
  for (int i = 0; i < 16; ++i) {
    f[22 + i] = std::byte(0x20 + i);  // source
    f[38 + i] = std::byte(0x40 + i);  // destination
  }
  for (std::size_t i = 0; i < upper.size(); ++i) f[54 + i] = upper[i];
  return f;
}

// A receiver's check over IPv6 (RFC 8200 section 8.1): the upper-layer
// bytes with the pseudo-header sum to 0xFFFF.
std::uint16_t ipv6_receiver_sum(std::span<const std::byte> frame, std::uint8_t next) {
  const auto l4 = frame.subspan(54);
  return tf::ones_complement_sum(
      l4, tf::ipv6_pseudo_header_sum(frame.subspan<22, 16>(), frame.subspan<38, 16>(), next,
                                     l4.size()));
}

TEST(PartialChecksum, Ipv6UdpAndTcpOverThePseudoHeader) {
  for (std::size_t n : {8u, 9u, 1232u}) {
    auto udp_bytes = payload(n);
    udp_bytes[6] = udp_bytes[7] = std::byte{0};
    auto udp = ipv6_frame(17, udp_bytes);
    auto partial = prepare_partial_checksum(udp);
    ASSERT_TRUE(partial.has_value()) << n;
    EXPECT_EQ(partial->start, 54);
    EXPECT_EQ(partial->offset, 6);
    complete_like_a_device(udp, *partial);
    EXPECT_EQ(ipv6_receiver_sum(udp, 17), 0xFFFF) << n;
  }
  auto tcp_bytes = payload(120);
  auto tcp = ipv6_frame(6, tcp_bytes);
  auto partial = prepare_partial_checksum(tcp);
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->offset, 16);
  complete_like_a_device(tcp, *partial);
  EXPECT_EQ(ipv6_receiver_sum(tcp, 6), 0xFFFF);
}

TEST(PartialChecksum, Ipv6WithExtensionHeadersOrFragmentsIsLeftAlone) {
  auto frag = ipv6_frame(44, payload(64));
  const auto before = frag;
  EXPECT_FALSE(prepare_partial_checksum(frag).has_value());
  EXPECT_EQ(frag, before);
  EXPECT_TRUE(is_ipv6_fragment(frag));
  auto icmp6 = ipv6_frame(58, payload(16));
  EXPECT_FALSE(prepare_partial_checksum(icmp6).has_value());
  EXPECT_FALSE(is_ipv6_fragment(icmp6));
  auto lying = ipv6_frame(17, payload(16));
  tf::put16(lying, 18, 1000);
  EXPECT_FALSE(prepare_partial_checksum(lying).has_value());
}

}  // namespace
}  // namespace starling::nic
