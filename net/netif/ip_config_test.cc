#include "net/netif/ip_config.h"

#include <gtest/gtest.h>

#include <string>

namespace starling::net {
namespace {

TEST(ParseIpv4, AcceptsDottedQuads) {
  EXPECT_EQ(*parse_ipv4("10.0.2.15"), 0x0A00020Fu);
  EXPECT_EQ(*parse_ipv4("0.0.0.0"), 0u);
  EXPECT_EQ(*parse_ipv4("255.255.255.255"), 0xFFFFFFFFu);
}

TEST(ParseIpv4, RejectsMalformed) {
  for (const char* bad :
       {"", "10", "10.0.2", "10.0.2.15.1", "10.0.2.256", "10..2.15", "10.0.2.", ".10.0.2",
        "10.0.2.1a", "a.b.c.d", "1000.0.0.1", "10.0.2.15 ", "-1.0.0.0"}) {
    auto r = parse_ipv4(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.error(), Error::kInvalidArgument) << bad;
  }
}

TEST(ParseBootargs, NoIpTokenKeepsTheFallback) {
  for (const char* args : {"", "console=ttyS0", "  quiet  ", "nfsroot=x ipx=1"}) {
    const auto p = parse_bootargs(args);
    EXPECT_FALSE(p.found) << args;
    EXPECT_EQ(p.error, IpConfigError::kNone) << args;
    EXPECT_EQ(p.config.address, kQemuUserDefault.address);
    EXPECT_EQ(p.config.gateway, kQemuUserDefault.gateway);
    EXPECT_FALSE(p.config.dhcp);
  }
}

TEST(ParseBootargs, Dhcp) {
  const auto p = parse_bootargs("console=x ip=dhcp quiet");
  EXPECT_TRUE(p.found);
  EXPECT_EQ(p.error, IpConfigError::kNone);
  EXPECT_TRUE(p.config.dhcp);
}

TEST(ParseBootargs, StaticWithAndWithoutGateway) {
  auto p = parse_bootargs("ip=192.168.1.20/16,gw=192.168.0.1");
  ASSERT_EQ(p.error, IpConfigError::kNone);
  EXPECT_FALSE(p.config.dhcp);
  EXPECT_EQ(p.config.address, 0xC0A80114u);
  EXPECT_EQ(p.config.netmask, 0xFFFF0000u);
  EXPECT_EQ(p.config.gateway, 0xC0A80001u);

  p = parse_bootargs("ip=10.0.2.15/24");
  ASSERT_EQ(p.error, IpConfigError::kNone);
  EXPECT_EQ(p.config.netmask, 0xFFFFFF00u);
  EXPECT_EQ(p.config.gateway, 0u);

  EXPECT_EQ(parse_bootargs("ip=1.2.3.4/32").config.netmask, 0xFFFFFFFFu);
  EXPECT_EQ(parse_bootargs("ip=1.2.3.4/0").config.netmask, 0u);
}

TEST(ParseBootargs, MalformedIsRefusedWithTheReasonAndTheFallbackKept) {
  struct Case {
    const char* args;
    IpConfigError error;
  };
  for (const Case& c : {Case{"ip=", IpConfigError::kBadAddress},
                        Case{"ip=10.0.2.300/24", IpConfigError::kBadAddress},
                        Case{"ip=10.0.2/24", IpConfigError::kBadAddress},
                        Case{"ip=10.0.2.15", IpConfigError::kBadPrefix},
                        Case{"ip=10.0.2.15/33", IpConfigError::kBadPrefix},
                        Case{"ip=10.0.2.15/", IpConfigError::kBadPrefix},
                        Case{"ip=10.0.2.15/2x", IpConfigError::kBadPrefix},
                        Case{"ip=10.0.2.15/24,gw=", IpConfigError::kBadGateway},
                        Case{"ip=10.0.2.15/24,gw=10.0.2", IpConfigError::kBadGateway},
                        Case{"ip=10.0.2.15/24,mask=1", IpConfigError::kUnknownOption},
                        Case{"ip=DHCP", IpConfigError::kBadAddress},
                        Case{"ip=dhcp ip=dhcp", IpConfigError::kDuplicate}}) {
    const auto p = parse_bootargs(c.args);
    EXPECT_TRUE(p.found) << c.args;
    EXPECT_EQ(p.error, c.error) << c.args << ": " << ip_config_error_text(p.error);
    EXPECT_EQ(p.config.address, kQemuUserDefault.address) << c.args;
    EXPECT_FALSE(p.config.dhcp) << c.args;
    EXPECT_NE(std::string(ip_config_error_text(p.error)), "ok");
  }
}

TEST(FormatIpv4, RoundTrips) {
  char text[16];
  for (std::uint32_t a : {0u, 0x0A00020Fu, 0xFFFFFFFFu, 0x7F000001u, 0xC0A86401u}) {
    const std::size_t n = format_ipv4(a, text);
    EXPECT_EQ(*parse_ipv4(std::string_view(text, n)), a);
  }
  EXPECT_EQ(std::string(text, format_ipv4(0x0A00020F, text)), "10.0.2.15");
}

TEST(ParseSubnet, AcceptsAndRefuses) {
  auto s = parse_subnet("10.0.2.0/24");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->contains(0x0A000202));
  EXPECT_TRUE(s->contains(0x0A0002FF));
  EXPECT_FALSE(s->contains(0x0A000302));
  auto any = parse_subnet("0.0.0.0/0");
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(any->contains(0xC0A80001));
  auto host = parse_subnet("192.168.1.7/32");
  ASSERT_TRUE(host.ok());
  EXPECT_TRUE(host->contains(0xC0A80107));
  EXPECT_FALSE(host->contains(0xC0A80108));
  for (const char* bad : {"", "10.0.2.0", "10.0.2.0/", "10.0.2.0/33", "10.0.2/24", "x/8"}) {
    EXPECT_FALSE(parse_subnet(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace starling::net
