#include "net/address/ip_address.h"

#include <gtest/gtest.h>

#include <string>

namespace starling::net {
namespace {

std::string text(const IpAddress& a) {
  char buffer[kIpTextMax];
  return std::string(format_ip(a, buffer));
}

std::string round_trip(std::string_view in) {
  const auto parsed = parse_ip(in);
  return parsed ? text(*parsed) : "(refused)";
}

TEST(IpAddress, Ipv4TextBothWays) {
  EXPECT_EQ(text(IpAddress::v4(0x0A00020F)), "10.0.2.15");
  EXPECT_EQ(text(IpAddress()), "0.0.0.0");
  EXPECT_EQ(round_trip("255.255.255.255"), "255.255.255.255");
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.4 ", "a.b.c.d",
                          "1.2.3.0004", "-1.2.3.4"}) {
    EXPECT_FALSE(parse_ip(bad).has_value()) << bad;
  }
}

// RFC 5952 section 4: lower case, no leading zeros, the longest zero run
// (the first of equal ones) compressed, a single zero group not.
TEST(IpAddress, Ipv6TextIsRfc5952) {
  EXPECT_EQ(round_trip("2001:0DB8:0000:0000:0000:0000:0000:0001"), "2001:db8::1");
  EXPECT_EQ(round_trip("fe80:0:0:0:5054:ff:fe12:3456"), "fe80::5054:ff:fe12:3456");
  EXPECT_EQ(round_trip("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
  EXPECT_EQ(round_trip("2001:0:0:1:0:0:0:1"), "2001:0:0:1::1");
  EXPECT_EQ(round_trip("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
  EXPECT_EQ(round_trip("::"), "::");
  EXPECT_EQ(round_trip("::1"), "::1");
  EXPECT_EQ(round_trip("1::"), "1::");
  EXPECT_EQ(round_trip("ff02::1:ff12:3456"), "ff02::1:ff12:3456");
  EXPECT_EQ(round_trip("::ffff:192.0.2.1"), "::ffff:c000:201");
  EXPECT_EQ(round_trip("1:2:3:4:5:6:7:8"), "1:2:3:4:5:6:7:8");
}

TEST(IpAddress, Ipv6ParserRefusesWhatRfc4291Does) {
  for (const char* bad : {":", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9",
                          "12345::", "g::1", ":1::", "1:", "1::2:", "fe80::1%eth0", "[::1]",
                          "::1/64", "1:2:3:4:5:6:7::8", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4"}) {
    EXPECT_FALSE(parse_ip(bad).has_value()) << bad;
  }
}

TEST(IpAddress, FamiliesNeverCompareAlike) {
  const auto v4 = IpAddress::v4(0xC0000201);
  const auto mapped = *parse_ip("::ffff:192.0.2.1");
  EXPECT_NE(v4, mapped);
  EXPECT_TRUE(v4.is_v4());
  EXPECT_TRUE(mapped.is_v6());
  // A keyed hash takes an IPv4 address in its mapped form: the same 16
  // bytes as the mapped IPv6 address, which no peer sends on the wire.
  EXPECT_EQ(v4.hash_bytes(), mapped.hash_bytes());
}

TEST(IpAddress, PeerIsTheAddressOrTheSlash64) {
  const auto a = *parse_ip("2001:db8:1:2:aaaa::1");
  const auto b = *parse_ip("2001:db8:1:2:bbbb::9");
  const auto other = *parse_ip("2001:db8:1:3::1");
  EXPECT_EQ(a.peer(), b.peer());
  EXPECT_NE(a.peer(), other.peer());
  EXPECT_EQ(text(a.peer()), "2001:db8:1:2::");
  // Link-local: every host shares fe80::/64, so each address is its own peer.
  EXPECT_NE(parse_ip("fe80::1")->peer(), parse_ip("fe80::2")->peer());
  EXPECT_EQ(parse_ip("fe80::1")->peer(), *parse_ip("fe80::1"));
  EXPECT_EQ(IpAddress::v4(0x0A000202).peer(), IpAddress::v4(0x0A000202));
  EXPECT_NE(IpAddress::v4(0x0A000202).peer(), IpAddress::v4(0x0A000203).peer());
}

TEST(IpAddress, Classes) {
  EXPECT_TRUE(parse_ip("ff02::1")->is_multicast());
  EXPECT_TRUE(parse_ip("224.0.0.251")->is_multicast());
  EXPECT_FALSE(parse_ip("10.0.2.15")->is_multicast());
  EXPECT_TRUE(parse_ip("fe80::1")->is_link_local_v6());
  EXPECT_TRUE(parse_ip("febf::1")->is_link_local_v6());
  EXPECT_FALSE(parse_ip("fec0::1")->is_link_local_v6());
  EXPECT_TRUE(parse_ip("::")->is_unspecified());
  EXPECT_TRUE(IpAddress().is_unspecified());
  EXPECT_FALSE(parse_ip("::1")->is_unspecified());
}

TEST(IpAddress, ShortBufferTruncatesSafely) {
  char small[5];
  EXPECT_EQ(format_ip(*parse_ip("2001:db8::1"), small), "2001:");
}

}  // namespace
}  // namespace starling::net
