#include "bench/echo/frame.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling::bench {
namespace {

UdpFlow flow() {
  UdpFlow f;
  f.src_mac = {0x02, 0, 0, 0, 0, 1};
  f.dst_mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
  f.src_ip = 0x0202000a;  // 10.0.2.2 in network order on a little-endian host
  f.dst_ip = 0x0f02000a;  // 10.0.2.15
  f.src_port = 40000;
  f.dst_port = 1235;
  return f;
}

TEST(Frame, Ipv4ChecksumOfAKnownHeader) {
  // The classic example header (Wikipedia, "IPv4 header checksum"): b861.
  const std::uint8_t header[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                                   0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(ipv4_checksum(header), 0xb861);
}

TEST(Frame, BuildsAFrameWhoseHeaderChecksumsToZero) {
  std::vector<std::byte> payload(1472, std::byte{0xab});
  std::vector<std::uint8_t> out(2000);
  const std::size_t n = build_udp_frame(flow(), payload, out);
  ASSERT_EQ(n, 14u + 20 + 8 + 1472);
  EXPECT_EQ(out[0], 0x52);  // destination first
  EXPECT_EQ(out[6], 0x02);
  EXPECT_EQ(out[12], 0x08);
  EXPECT_EQ(out[13], 0x00);
  EXPECT_EQ((out[16] << 8) | out[17], 20 + 8 + 1472);  // IP total length
  // A correct header sums (checksum included) to 0xffff: its checksum is 0.
  EXPECT_EQ(ipv4_checksum(std::span(out).subspan(14, 20)), 0);
  EXPECT_EQ((out[38] << 8) | out[39], 8 + 1472);  // UDP length
}

TEST(Frame, ShortFramesArePaddedAndTooSmallBuffersRefused) {
  std::vector<std::byte> payload(4, std::byte{1});
  std::vector<std::uint8_t> out(60, 0xee);
  EXPECT_EQ(build_udp_frame(flow(), payload, out), 60u);
  EXPECT_EQ(out[59], 0);
  std::vector<std::uint8_t> small(59);
  EXPECT_EQ(build_udp_frame(flow(), payload, small), 0u);
}

TEST(Frame, ReflectedFrameGivesBackThePayload) {
  std::vector<std::byte> payload(100);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::byte>(i);
  std::vector<std::uint8_t> out(200);
  const std::size_t n = build_udp_frame(flow(), payload, out);
  const auto got = udp_payload_of(std::span(out).first(n), 40000, 1235);
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->size(), payload.size());
  EXPECT_EQ((*got)[99], std::byte{99});
}

TEST(Frame, OtherFlowsAndTruncatedFrames) {
  std::vector<std::byte> payload(100);
  std::vector<std::uint8_t> out(200);
  const std::size_t n = build_udp_frame(flow(), payload, out);
  const auto frame = std::span(out).first(n);
  EXPECT_FALSE(udp_payload_of(frame, 40001, 1235).has_value());  // another flow
  EXPECT_FALSE(udp_payload_of(frame, 40000, 1236).has_value());
  EXPECT_FALSE(udp_payload_of(frame.first(20), 40000, 1235).has_value());  // no UDP header
  // Ours, but cut short: the UDP length runs past the frame.
  const auto cut = udp_payload_of(frame.first(80), 40000, 1235);
  ASSERT_TRUE(cut.has_value());
  EXPECT_TRUE(cut->empty());
  auto arp = out;
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_FALSE(udp_payload_of(std::span(arp).first(n), 40000, 1235).has_value());
}

}  // namespace
}  // namespace starling::bench
