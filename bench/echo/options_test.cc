#include "bench/echo/options.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

namespace starling::bench {
namespace {

ParsedOptions parse(std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> v(args);
  return parse_options(v);
}

TEST(Options, Rates) {
  EXPECT_EQ(parse_rate("100M"), 100e6);
  EXPECT_EQ(parse_rate("1.5G"), 1.5e9);
  EXPECT_EQ(parse_rate("64k"), 64e3);
  EXPECT_EQ(parse_rate("20000"), 20000.0);
  EXPECT_FALSE(parse_rate("").has_value());
  EXPECT_FALSE(parse_rate("M").has_value());
  EXPECT_FALSE(parse_rate("-5M").has_value());
  EXPECT_FALSE(parse_rate("0").has_value());
  EXPECT_FALSE(parse_rate("10X").has_value());
}

TEST(Options, DefaultsAndSizes) {
  auto udp = parse({"--target", "10.0.2.15", "--rates", "10M,20M"});
  ASSERT_TRUE(udp.options) << udp.error;
  EXPECT_EQ(udp.options->size, 1472u);
  EXPECT_EQ(udp.options->rates_bps, (std::vector<double>{10e6, 20e6}));
  EXPECT_EQ(udp.options->util_port, 1237);
  EXPECT_FALSE(udp.options->closed_loop);
  auto tcp = parse({"--target=10.0.2.15", "--rates=1M", "--transport=tcp", "--port=1236"});
  ASSERT_TRUE(tcp.options) << tcp.error;
  EXPECT_EQ(tcp.options->size, 1460u);
  EXPECT_EQ(tcp.options->port, 1236);
  EXPECT_EQ(tcp.options->stats_port, 1235);
  auto forwarded = parse({"--target", "127.0.0.1", "--port", "15235", "--rates", "1M"});
  ASSERT_TRUE(forwarded.options) << forwarded.error;
  EXPECT_EQ(forwarded.options->stats_port, 15235);
  auto closed = parse({"--target", "10.0.2.15", "--rates", "10M", "--closed-loop"});
  ASSERT_TRUE(closed.options) << closed.error;
  EXPECT_TRUE(closed.options->closed_loop);
}

TEST(Options, UnknownFlagIsNamedEvenWithoutAValue) {
  auto r = parse({"--target", "10.0.2.15", "--rates", "1M", "--bogus"});
  ASSERT_FALSE(r.options);
  EXPECT_EQ(r.error, "unknown flag '--bogus' (see --help)");
}

TEST(Options, ErrorsNameTheFlag) {
  struct Case {
    std::initializer_list<std::string_view> args;
    const char* flag;
  };
  const Case cases[] = {
      {{"--target", "10.0.2.300", "--rates", "1M"}, "--target"},
      {{"--target", "10.0.2.15", "--rates", "1M,abc"}, "--rates"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--size", "20"}, "--size"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--samples", "0"}, "--samples"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--port", "70000"}, "--port"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--bogus", "1"}, "--bogus"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--transport", "sctp"}, "--transport"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--max-seconds", "0"}, "--max-seconds"},
      {{"--target", "10.0.2.15", "--rates"}, "--rates"},
      {{"--rates", "1M"}, "--target"},
      {{"--target", "10.0.2.15"}, "--rates"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--transport", "raw"}, "--transport raw"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--iface", "tap0"}, "--iface"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--stats-file", "x"}, "--stats-file"},
      {{"--target", "10.0.2.15", "--probe-first-echo"}, "--probe-first-echo"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--stats=1"}, "--stats"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--closed-loop=yes"}, "--closed-loop"},
      {{"--target", "10.0.2.15", "--rates", "1M", "--transport", "raw", "--iface", "t", "--dst-mac",
        "52:54:00:12:34", "--src-ip", "10.0.2.2"},
       "--dst-mac"},
  };
  for (const Case& c : cases) {
    const auto r = parse(c.args);
    EXPECT_FALSE(r.options.has_value()) << c.flag;
    EXPECT_NE(r.error.find(c.flag), std::string::npos) << r.error;
  }
}

TEST(Options, RawAndProbe) {
  auto raw = parse({"--target", "10.0.2.15", "--rates", "1M", "--transport", "raw", "--iface",
                    "tap0", "--dst-mac", "52:54:00:12:34:56", "--src-ip", "10.0.2.2"});
  ASSERT_TRUE(raw.options) << raw.error;
  EXPECT_EQ(raw.options->transport, Transport::kRaw);
  auto probe = parse({"--target", "10.0.2.15", "--probe-first-echo", "--since-realtime-ns",
                      "1700000000000000000"});
  ASSERT_TRUE(probe.options) << probe.error;
  EXPECT_TRUE(probe.options->probe);
}

TEST(Options, HelpNeedsNothingElse) {
  auto help = parse({"--help"});
  ASSERT_TRUE(help.options);
  EXPECT_TRUE(help.options->help);
}

}  // namespace

TEST(Options, Ipv6Targets) {
  auto ll = parse({"--target", "fe80::5054:ff:fe12:3456%tap0", "--rates", "1M"});
  ASSERT_TRUE(ll.options) << ll.error;
  EXPECT_EQ(ll.options->target, "fe80::5054:ff:fe12:3456%tap0");
  auto global = parse({"--target", "2001:db8::15", "--rates", "1M", "--transport", "tcp"});
  EXPECT_TRUE(global.options) << global.error;
  for (const char* bad : {"fe80::1%", "2001:db8:::1", "10.0.2", "host.example"}) {
    EXPECT_FALSE(parse({"--target", bad, "--rates", "1M"}).options) << bad;
  }
  auto raw = parse({"--target", "fe80::1%tap0", "--rates", "1M", "--transport", "raw", "--iface",
                    "tap0", "--dst-mac", "52:54:00:12:34:56", "--src-ip", "10.0.2.2"});
  EXPECT_FALSE(raw.options);
  EXPECT_NE(raw.error.find("IPv4"), std::string::npos) << raw.error;
}

}  // namespace starling::bench
