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

TEST(ParseIp6, AutoIsTheDefault) {
  const auto none = parse_ip6_bootargs("console=ttyS0 ip=dhcp");
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.config.mode, Ip6Mode::kAuto);
  EXPECT_EQ(parse_ip6_bootargs("ip6=auto").config.mode, Ip6Mode::kAuto);
  const auto off = parse_ip6_bootargs("x=1 ip6=off y=2");
  EXPECT_TRUE(off.found);
  EXPECT_EQ(off.error, Ip6ConfigError::kNone);
  EXPECT_EQ(off.config.mode, Ip6Mode::kOff);
}

TEST(ParseIp6, StaticWithAndWithoutGateway) {
  const auto a = parse_ip6_bootargs("ip6=2001:db8:1::15/64");
  ASSERT_EQ(a.error, Ip6ConfigError::kNone);
  EXPECT_EQ(a.config.mode, Ip6Mode::kStatic);
  EXPECT_EQ(a.config.address, *parse_ip("2001:db8:1::15"));
  EXPECT_EQ(a.config.prefix_length, 64);
  EXPECT_TRUE(a.config.gateway.is_unspecified());
  const auto b = parse_ip6_bootargs("ip6=2001:db8:1::15/64,gw=fe80::1");
  ASSERT_EQ(b.error, Ip6ConfigError::kNone);
  EXPECT_EQ(b.config.gateway, *parse_ip("fe80::1"));
  EXPECT_EQ(parse_ip6_bootargs("ip6=fd00::1/128").config.prefix_length, 128);
}

TEST(ParseIp6, RefusesWithTheReason) {
  const struct {
    const char* args;
    Ip6ConfigError error;
  } cases[] = {
      {"ip6=", Ip6ConfigError::kBadAddress},
      {"ip6=dhcp", Ip6ConfigError::kBadAddress},
      {"ip6=10.0.2.15/24", Ip6ConfigError::kBadAddress},
      {"ip6=ff02::1/64", Ip6ConfigError::kBadAddress},
      {"ip6=::/64", Ip6ConfigError::kBadAddress},
      {"ip6=2001:db8::1", Ip6ConfigError::kBadPrefix},
      {"ip6=2001:db8::1/0", Ip6ConfigError::kBadPrefix},
      {"ip6=2001:db8::1/129", Ip6ConfigError::kBadPrefix},
      {"ip6=2001:db8::1/64,gw=", Ip6ConfigError::kBadGateway},
      {"ip6=2001:db8::1/64,gw=10.0.2.2", Ip6ConfigError::kBadGateway},
      {"ip6=2001:db8::1/64,mtu=1280", Ip6ConfigError::kUnknownOption},
      {"ip6=off ip6=auto", Ip6ConfigError::kDuplicate},
  };
  for (const auto& c : cases) {
    const auto parsed = parse_ip6_bootargs(c.args);
    EXPECT_TRUE(parsed.found) << c.args;
    EXPECT_EQ(parsed.error, c.error) << c.args << ": " << ip6_config_error_text(parsed.error);
    EXPECT_EQ(parsed.config.mode, Ip6Mode::kAuto) << c.args;  // the default is kept
    EXPECT_STRNE(ip6_config_error_text(parsed.error), "?");
  }
}

}  // namespace
}  // namespace starling::net
